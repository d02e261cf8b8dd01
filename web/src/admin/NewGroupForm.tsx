import { type FormEvent, useState } from "react";
import type { Tier } from "../api/types";
import { ErrorMessage } from "../ui/ErrorMessage";
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
      <label className="field">
        <span>Group name</span>
        <input required value={name} onChange={(e) => setName(e.target.value)} />
      </label>
      <label className="field">
        <span>Group URL (path; from the name when empty)</span>
        <input value={path} onChange={(e) => setPath(e.target.value)} />
      </label>
      <label className="field">
        <span>Plan</span>
        <select value={plan} onChange={(e) => setPlan(e.target.value as Tier)}>
          {PLANS.map((p) => (
            <option key={p.value} value={p.value}>
              {p.label}
            </option>
          ))}
        </select>
      </label>
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
