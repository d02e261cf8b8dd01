import { type FormEvent, useState } from "react";
import { useCurrentProject } from "../projects/context";
import { CopyButton } from "../ui/CopyButton";
import { ErrorMessage } from "../ui/ErrorMessage";
import { Loading } from "../ui/Loading";
import { useDocumentTitle } from "../ui/title";
import { useAddHook, useDeleteHook, useHooks, useUpdateHook } from "./api";
import { DeliveriesTable } from "./DeliveriesTable";
import type { Hook } from "./types";

interface HookValues {
  url: string;
  token: string;
  alert_events: boolean;
  incident_events: boolean;
  enable_ssl_verification: boolean;
}

/** The hook form, for a new hook or an existing one (the token is write-only: empty keeps it). */
function HookForm({
  initial,
  label,
  busy,
  onSubmit,
}: {
  initial: HookValues;
  label: string;
  busy: boolean;
  onSubmit: (v: HookValues) => void;
}) {
  const [v, setV] = useState(initial);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onSubmit(v);
  };
  const check = (key: "alert_events" | "incident_events" | "enable_ssl_verification", text: string) => (
    <label className="check">
      <input type="checkbox" checked={v[key]} onChange={(e) => setV({ ...v, [key]: e.target.checked })} />
      <span>{text}</span>
    </label>
  );
  return (
    <form className="stack" onSubmit={submit} aria-label={label}>
      <label className="field">
        <span>URL</span>
        <input type="url" required value={v.url} onChange={(e) => setV({ ...v, url: e.target.value })} />
      </label>
      <label className="field">
        <span>Secret token</span>
        <input type="password" autoComplete="off" value={v.token} onChange={(e) => setV({ ...v, token: e.target.value })} />
        <span className="hint">Sent as X-Gitlab-Token. Write-only: leave empty to keep the saved one.</span>
      </label>
      <fieldset className="stack">
        <legend>Trigger</legend>
        {check("alert_events", "Alert events")}
        {check("incident_events", "Incident events")}
      </fieldset>
      {check("enable_ssl_verification", "Enable SSL verification")}
      <div className="actions">
        <button type="submit" className="primary" disabled={busy}>
          {label}
        </button>
      </div>
    </form>
  );
}

function HookRow({ fullPath, hook }: { fullPath: string; hook: Hook }) {
  const [editing, setEditing] = useState(false);
  const [showEvents, setShowEvents] = useState(false);
  const update = useUpdateHook(fullPath, hook.id);
  const remove = useDeleteHook(fullPath);
  return (
    <li className="card stack">
      <p>
        <strong>{hook.url}</strong>{" "}
        <span className={`badge ${hook.alert_status === "disabled" ? "disabled" : "enabled"}`}>
          {hook.alert_status === "disabled" ? "Disabled" : "Enabled"}
        </span>{" "}
        {[hook.alert_events && "Alert events", hook.incident_events && "Incident events"].filter(Boolean).join(", ") ||
          "No events"}
      </p>
      <div className="actions">
        <button type="button" onClick={() => setEditing(!editing)} aria-label={`Edit ${hook.url}`} aria-expanded={editing}>
          Edit
        </button>
        <button
          type="button"
          onClick={() => setShowEvents(!showEvents)}
          aria-label={`Recent events of ${hook.url}`}
          aria-expanded={showEvents}
        >
          Recent events
        </button>
        <button type="button" className="danger" onClick={() => remove.mutate(hook.id)} aria-label={`Delete ${hook.url}`}>
          Delete
        </button>
      </div>
      {editing && (
        <HookForm
          label="Save hook"
          busy={update.isPending}
          initial={{ ...hook, token: "" }}
          onSubmit={({ token, ...rest }) =>
            update.mutate(token ? { ...rest, token } : rest, { onSuccess: () => setEditing(false) })
          }
        />
      )}
      {update.isError && <ErrorMessage error={update.error} />}
      {remove.isError && <ErrorMessage error={remove.error} />}
      {showEvents && <DeliveriesTable fullPath={fullPath} target={`hooks/${hook.id}`} label={hook.url} />}
    </li>
  );
}

/** `/<full_path>/-/hooks`: project webhooks, their recent events and Resend (Maintainer+). */
export default function HooksPage() {
  const { project, fullPath } = useCurrentProject();
  useDocumentTitle(`Webhooks · ${project.name}`);
  const hooks = useHooks(fullPath);
  const add = useAddHook(fullPath);
  const [formKey, setFormKey] = useState(0);
  return (
    <>
      <h1>Webhooks</h1>
      <p>Webhooks send alert and incident events to a URL, signed with Standard Webhooks.</p>
      <section className="card stack" aria-labelledby="add-hook-title">
        <h2 id="add-hook-title">Add new webhook</h2>
        <HookForm
          key={formKey}
          label="Add webhook"
          busy={add.isPending}
          initial={{ url: "", token: "", alert_events: true, incident_events: false, enable_ssl_verification: true }}
          onSubmit={({ token, ...rest }) =>
            add.mutate(token ? { ...rest, token } : rest, { onSuccess: () => setFormKey(formKey + 1) })
          }
        />
        {add.isError && <ErrorMessage error={add.error} />}
        {add.data?.signing_secret && (
          <div role="status" className="message success stack">
            <p>Webhook added. Its signing secret is shown only now:</p>
            <p>
              <code>{add.data.signing_secret}</code> <CopyButton text={add.data.signing_secret} label="Copy signing secret" />
            </p>
          </div>
        )}
      </section>
      <section className="stack" aria-labelledby="hooks-title">
        <h2 id="hooks-title">Project hooks</h2>
        {hooks.isPending ? (
          <Loading label="Loading webhooks" />
        ) : hooks.isError ? (
          <ErrorMessage error={hooks.error} />
        ) : hooks.data.length === 0 ? (
          <p className="empty">No webhooks enabled.</p>
        ) : (
          <ul className="stack plain">
            {hooks.data.map((h) => (
              <HookRow key={h.id} fullPath={fullPath} hook={h} />
            ))}
          </ul>
        )}
      </section>
    </>
  );
}
