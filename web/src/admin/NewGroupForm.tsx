import { type FormEvent, useState } from "react";
import type { Tier } from "../api/types";
import { ErrorMessage } from "../ui/ErrorMessage";
import { Field } from "../ui/Field";
import { PLANS, useCreateGroup } from "./api";

export function NewGroupForm() {
  const [name, setName] = useState("");
  const [path, setPath] = useState("");
  const [plan, setPlan] = useState<Tier>("free");
  const create = useCreateGroup();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const p =
      path.trim() ||
      name
        .trim()
        .toLowerCase()
        .replace(/[^a-z0-9_.-]+/g, "-");
    create.mutate(
      { name: name.trim(), path: p, plan },
      {
        onSuccess: () => {
          setName("");
          setPath("");
          setPlan("free");
        },
      },
    );
  };
  return (
    <form className="card stack" onSubmit={submit} aria-labelledby="new-group-title">
      <h3 id="new-group-title">New group</h3>
      <Field label="Group name">
        {(control) => <input {...control} required value={name} onChange={(e) => setName(e.target.value)} />}
      </Field>
      <Field label="Group URL (path; from the name when empty)">
        {(control) => <input {...control} value={path} onChange={(e) => setPath(e.target.value)} />}
      </Field>
      <Field label="Plan">
        {(control) => (
          <select {...control} value={plan} onChange={(e) => setPlan(e.target.value as Tier)}>
            {PLANS.map((p) => (
              <option key={p.value} value={p.value}>
                {p.label}
              </option>
            ))}
          </select>
        )}
      </Field>
      {create.isError && <ErrorMessage error={create.error} />}
      {create.isSuccess && (
        <p role="status" className="message success">
          Group {create.data.full_path} was created.
        </p>
      )}
      <div className="actions">
        <button type="submit" className="primary" disabled={create.isPending}>
          Create group
        </button>
      </div>
    </form>
  );
}
