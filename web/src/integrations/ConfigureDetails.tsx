import { type FormEvent, useState } from "react";
import { ErrorMessage } from "../ui/ErrorMessage";
import { Field } from "../ui/Field";
import { useUpdateIntegration } from "./api";
import { KeyProtection } from "./KeyProtection";
import type { Integration } from "./types";

export function ConfigureDetails({ fullPath, integration }: { fullPath: string; integration: Integration }) {
  const [name, setName] = useState(integration.name);
  const [active, setActive] = useState(integration.active);
  const [apiUrl, setApiUrl] = useState(integration.api_url ?? "");
  const [rateLimit, setRateLimit] = useState(String(integration.rate_limit_per_minute ?? ""));
  const [autoResolve, setAutoResolve] = useState(String(integration.auto_resolve_minutes ?? ""));
  const update = useUpdateIntegration(fullPath, integration.type, integration.id);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const protection = {
      ...(rateLimit.trim() ? { rate_limit_per_minute: Number(rateLimit) } : {}),
      auto_resolve_minutes: autoResolve.trim() ? Number(autoResolve) : null,
    };
    if (integration.type === "http") update.mutate({ name: name.trim(), active, ...protection });
    else update.mutate({ active, api_url: apiUrl.trim(), ...protection });
  };
  return (
    <>
      <form className="stack" onSubmit={submit}>
        {integration.type === "http" ? (
          <Field label="Integration name">
            {(control) => <input {...control} required maxLength={255} value={name} onChange={(e) => setName(e.target.value)} />}
          </Field>
        ) : (
          <Field label="Prometheus API base URL (optional)">
            {(control) => (
              <input
                {...control}
                type="url"
                value={apiUrl}
                placeholder="https://prometheus.example.com"
                onChange={(e) => setApiUrl(e.target.value)}
              />
            )}
          </Field>
        )}
        <label className="check">
          <input type="checkbox" checked={active} onChange={(e) => setActive(e.target.checked)} />
          <span>Active</span>
        </label>
        <Field label="Rate limit (requests per minute; 0 = unlimited)">
          {(control) => (
            <input
              {...control}
              type="number"
              min={0}
              max={1000000}
              value={rateLimit}
              onChange={(e) => setRateLimit(e.target.value)}
            />
          )}
        </Field>
        <Field label="Auto-resolve after minutes without new events (empty = never)">
          {(control) => (
            <input
              {...control}
              type="number"
              min={1}
              max={10080}
              value={autoResolve}
              onChange={(e) => setAutoResolve(e.target.value)}
            />
          )}
        </Field>
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
      <KeyProtection fullPath={fullPath} integration={integration} />
    </>
  );
}
