import { type FormEvent, useState } from "react";
import { ErrorMessage } from "../ui/ErrorMessage";
import { Field } from "../ui/Field";
import { useCreateUser } from "./api";

const EMPTY = { username: "", email: "", name: "", password: "", admin: false };

export function NewUserForm() {
  const [form, setForm] = useState(EMPTY);
  const create = useCreateUser();
  const set = (k: keyof typeof EMPTY) => (e: { target: { value: string; checked: boolean; type: string } }) =>
    setForm((f) => ({ ...f, [k]: e.target.type === "checkbox" ? e.target.checked : e.target.value }));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate(
      { ...form, username: form.username.trim(), email: form.email.trim(), name: form.name.trim() },
      { onSuccess: () => setForm(EMPTY) },
    );
  };
  return (
    <form className="card stack" onSubmit={submit} aria-labelledby="new-user-title">
      <h3 id="new-user-title">New user</h3>
      <Field label="Name">{(control) => <input {...control} required value={form.name} onChange={set("name")} />}</Field>
      <Field label="Username">
        {(control) => <input {...control} required value={form.username} onChange={set("username")} autoComplete="off" />}
      </Field>
      <Field label="Email">
        {(control) => <input {...control} required type="email" value={form.email} onChange={set("email")} autoComplete="off" />}
      </Field>
      <Field label="Password">
        {(control) => (
          <input
            {...control}
            required
            type="password"
            minLength={8}
            value={form.password}
            onChange={set("password")}
            autoComplete="new-password"
          />
        )}
      </Field>
      <label className="check">
        <input type="checkbox" checked={form.admin} onChange={set("admin")} />
        <span>Administrator</span>
      </label>
      {create.isError && <ErrorMessage error={create.error} />}
      {create.isSuccess && (
        <p role="status" className="message success">
          User {create.data.username} was created.
        </p>
      )}
      <div className="actions">
        <button type="submit" className="primary" disabled={create.isPending}>
          Create user
        </button>
      </div>
    </form>
  );
}
