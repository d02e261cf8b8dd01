import { type FormEvent, useState } from "react";
import { ErrorMessage } from "../ui/ErrorMessage";
import { useCreateIntegration } from "./api";
import type { Integration } from "./types";

interface Props {
  fullPath: string;
  onCreated: (integration: Integration) => void;
  onCancel: () => void;
}

export function AddIntegrationForm({ fullPath, onCreated, onCancel }: Props) {
  const [type, setType] = useState<"" | "http" | "prometheus">("");
  const [name, setName] = useState("");
  const [active, setActive] = useState(true);
  const create = useCreateIntegration(fullPath);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!type) return;
    create.mutate({ type, name: name.trim(), active }, { onSuccess: onCreated });
  };
  return (
    <section className="card" aria-labelledby="add-integration-title">
      <h3 id="add-integration-title">Add new integration</h3>
      <form className="stack" onSubmit={submit}>
        <label className="field">
          <span>1. Select integration type</span>
          <select required value={type} onChange={(e) => setType(e.target.value as typeof type)}>
            <option value="">Select integration type</option>
            <option value="http">HTTP Endpoint</option>
            <option value="prometheus">Prometheus</option>
          </select>
        </label>
        {type === "http" && (
          <label className="field">
            <span>2. Name integration</span>
            <input
              required
              maxLength={255}
              placeholder="Enter integration name"
              value={name}
              onChange={(e) => setName(e.target.value)}
            />
          </label>
        )}
        {type && (
          <label className="check">
            <input type="checkbox" checked={active} onChange={(e) => setActive(e.target.checked)} />
            <span>Active</span>
          </label>
        )}
        {create.isError && <ErrorMessage error={create.error} />}
        <div className="actions">
          <button type="submit" className="primary" disabled={!type || create.isPending}>
            Save integration
          </button>
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        </div>
      </form>
    </section>
  );
}
