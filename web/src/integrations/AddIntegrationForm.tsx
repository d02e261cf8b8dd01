import { type FormEvent, useState } from "react";
import { ErrorMessage } from "../ui/ErrorMessage";
import { Field } from "../ui/Field";
import { useSubmit } from "../ui/submit";
import type { NewIntegration } from "./api";
import type { Integration } from "./types";

interface Props {
  /** The page's create call (`POST …/http_integrations` or `PUT …/prometheus_integration`). */
  onSubmit: (input: NewIntegration) => Promise<Integration>;
  onCreated: (integration: Integration) => void;
  onCancel: () => void;
}

export function AddIntegrationForm({ onSubmit, onCreated, onCancel }: Props) {
  const [type, setType] = useState<"" | "http" | "prometheus">("");
  const [name, setName] = useState("");
  const [active, setActive] = useState(true);
  const [nameError, setNameError] = useState("");
  const create = useSubmit(onSubmit);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!type) return;
    if (type === "http" && !name.trim()) {
      setNameError("Enter a name for the integration.");
      return;
    }
    setNameError("");
    create.submit({ type, name: name.trim(), active }, onCreated);
  };
  return (
    <section className="card" aria-labelledby="add-integration-title">
      <h3 id="add-integration-title">Add new integration</h3>
      <form className="stack" onSubmit={submit}>
        <Field label="1. Select integration type">
          {(control) => (
            <select {...control} required value={type} onChange={(e) => setType(e.target.value as typeof type)}>
              <option value="">Select integration type</option>
              <option value="http">HTTP Endpoint</option>
              <option value="prometheus">Prometheus</option>
            </select>
          )}
        </Field>
        {type === "http" && (
          <Field label="2. Name integration" error={nameError}>
            {(control) => (
              <input
                {...control}
                required
                maxLength={255}
                placeholder="Enter integration name"
                value={name}
                onChange={(e) => setName(e.target.value)}
              />
            )}
          </Field>
        )}
        {type && (
          <label className="check">
            <input type="checkbox" checked={active} onChange={(e) => setActive(e.target.checked)} />
            <span>Active</span>
          </label>
        )}
        {create.error ? <ErrorMessage error={create.error} /> : null}
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
