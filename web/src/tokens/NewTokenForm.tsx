import { type FormEvent, useId, useState } from "react";
import { CopyButton } from "../ui/CopyButton";
import { ErrorMessage } from "../ui/ErrorMessage";
import { Field } from "../ui/Field";
import { SCOPES, useCreateToken } from "./api";

/** Name, scopes and expiry; the new token is shown once, with a copy button. */
export function NewTokenForm() {
  const [name, setName] = useState("");
  const [expires, setExpires] = useState("");
  const [scopes, setScopes] = useState<string[]>(["api"]);
  const create = useCreateToken();
  const tokenId = useId();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate(
      { name: name.trim(), scopes, ...(expires ? { expires_at: expires } : {}) },
      {
        onSuccess: () => {
          setName("");
          setExpires("");
        },
      },
    );
  };
  const toggle = (scope: string, on: boolean) => setScopes((s) => (on ? [...s, scope] : s.filter((x) => x !== scope)));
  const created = create.data;
  return (
    <section className="card" aria-labelledby="new-token-title">
      <h2 id="new-token-title">Add a personal access token</h2>
      {created?.token && (
        <div className="stack">
          <p className="message success" role="status">
            Your new personal access token <strong>{created.name}</strong> has been created. Copy it now: it will not be shown
            again.
          </p>
          <label htmlFor={tokenId}>Your new personal access token</label>
          <div className="with-button">
            <input id={tokenId} readOnly className="mono" value={created.token} onFocus={(e) => e.target.select()} />
            <CopyButton text={created.token} label="Copy personal access token" />
          </div>
        </div>
      )}
      <form className="stack" onSubmit={submit}>
        <Field label="Token name">
          {(control) => <input {...control} required maxLength={255} value={name} onChange={(e) => setName(e.target.value)} />}
        </Field>
        <Field label="Expiration date (optional)">
          {(control) => <input {...control} type="date" value={expires} onChange={(e) => setExpires(e.target.value)} />}
        </Field>
        <fieldset>
          <legend>Select scopes</legend>
          {SCOPES.map((s) => (
            <label key={s.value} className="check">
              <input type="checkbox" checked={scopes.includes(s.value)} onChange={(e) => toggle(s.value, e.target.checked)} />
              <span>
                <strong>{s.value}</strong> <span className="muted">{s.help}</span>
              </span>
            </label>
          ))}
        </fieldset>
        {create.isError && <ErrorMessage error={create.error} />}
        <div className="actions">
          <button type="submit" className="primary" disabled={create.isPending}>
            Create personal access token
          </button>
        </div>
      </form>
    </section>
  );
}
