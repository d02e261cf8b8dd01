import { type FormEvent, useState } from "react";
import { ErrorMessage } from "../ui/ErrorMessage";
import { useUpdateIntegration } from "./api";
import type { Integration } from "./types";

export function ConfigureDetails({ fullPath, integration }: { fullPath: string; integration: Integration }) {
  const [name, setName] = useState(integration.name);
  const [active, setActive] = useState(integration.active);
  const [apiUrl, setApiUrl] = useState(integration.api_url ?? "");
  const update = useUpdateIntegration(fullPath, integration.type, integration.id);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (integration.type === "http") update.mutate({ name: name.trim(), active });
    else update.mutate({ active, api_url: apiUrl.trim() });
  };
  return (
    <form className="stack" onSubmit={submit}>
      {integration.type === "http" ? (
        <label className="field">
          <span>Integration name</span>
          <input required maxLength={255} value={name} onChange={(e) => setName(e.target.value)} />
        </label>
      ) : (
        <label className="field">
          <span>Prometheus API base URL (optional)</span>
          <input
            type="url"
            value={apiUrl}
            placeholder="https://prometheus.example.com"
            onChange={(e) => setApiUrl(e.target.value)}
          />
        </label>
      )}
      <label className="check">
        <input type="checkbox" checked={active} onChange={(e) => setActive(e.target.checked)} />
        <span>Active</span>
      </label>
      {update.isError && <ErrorMessage error={update.error} />}
      {update.isSuccess && (
        <p role="status" className="message success">
          Integration saved.
        </p>
      )}
      <div className="actions">
        <button type="submit" className="primary" disabled={update.isPending}>
          Save integration
        </button>
      </div>
    </form>
  );
}
