import { type FormEvent, useEffect, useId, useState } from "react";
import { Navigate, useSearchParams } from "react-router";
import { Field } from "../ui/Field";
import { useDocumentTitle } from "../ui/title";
import { useSession, useSignIn } from "./api";
import { safeReturnPath } from "./redirect";

export function SignInPage() {
  useDocumentTitle("Sign in");
  const [params] = useSearchParams();
  const returnTo = safeReturnPath(params.get("redirect_to"));
  const session = useSession();
  const signIn = useSignIn();
  const [login, setLogin] = useState("");
  const [password, setPassword] = useState("");
  const errorId = useId();

  useEffect(() => {
    if (signIn.isError) setPassword("");
  }, [signIn.isError]);

  if (session.data) return <Navigate replace to={returnTo} />;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    signIn.mutate({ login: login.trim(), password });
  };

  return (
    <div className="sign-in">
      <h1>Sign in to Tocsin</h1>
      <form onSubmit={submit} className="card stack" aria-describedby={signIn.isError ? errorId : undefined}>
        {signIn.isError && (
          <p id={errorId} role="alert" className="message error">
            {signIn.error.message}
          </p>
        )}
        <Field label="Username or primary email">
          {(control) => (
            <input
              {...control}
              name="login"
              autoComplete="username"
              required
              // biome-ignore lint/a11y/noAutofocus: the sign-in form's only purpose is to be filled in
              autoFocus
              value={login}
              onChange={(e) => setLogin(e.target.value)}
            />
          )}
        </Field>
        <Field label="Password">
          {(control) => (
            <input
              {...control}
              name="password"
              type="password"
              autoComplete="current-password"
              required
              value={password}
              onChange={(e) => setPassword(e.target.value)}
            />
          )}
        </Field>
        <button type="submit" className="primary" disabled={signIn.isPending}>
          {signIn.isPending ? "Signing in…" : "Sign in"}
        </button>
      </form>
    </div>
  );
}
