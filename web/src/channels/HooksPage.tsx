import { type FormEvent, useState } from "react";
import { useCurrentProject } from "../projects/context";
import { CopyButton } from "../ui/CopyButton";
import { ErrorMessage } from "../ui/ErrorMessage";
import { Field } from "../ui/Field";
import { QueryState } from "../ui/QueryState";
import { useDocumentTitle } from "../ui/title";
import { useAddHook, useDeleteHook, useDeliveries, useHooks, useUpdateHook } from "./api";
import { DeliveriesTable } from "./DeliveriesTable";
import { HookSecretRotation } from "./HookSecretRotation";
import type { Hook } from "./types";

type DeliveriesQuery = ReturnType<typeof useDeliveries>[number];

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
      <Field label="URL">
        {(control) => (
          <input {...control} type="url" required value={v.url} onChange={(e) => setV({ ...v, url: e.target.value })} />
        )}
      </Field>
      <Field label="Secret token" hint="Sent as X-Gitlab-Token. Write-only: leave empty to keep the saved one.">
        {(control) => (
          <input
            {...control}
            type="password"
            autoComplete="off"
            value={v.token}
            onChange={(e) => setV({ ...v, token: e.target.value })}
          />
        )}
      </Field>
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

interface RowProps {
  fullPath: string;
  hook: Hook;
  /** The hook's recent events, read by the page while they are shown; undefined while hidden. */
  events: DeliveriesQuery | undefined;
  onToggleEvents: () => void;
}

function HookRow({ fullPath, hook, events, onToggleEvents }: RowProps) {
  const [editing, setEditing] = useState(false);
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
          onClick={onToggleEvents}
          aria-label={`Recent events of ${hook.url}`}
          aria-expanded={events !== undefined}
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
      {editing && <HookSecretRotation fullPath={fullPath} hook={hook} />}
      {update.isError && <ErrorMessage error={update.error} />}
      {remove.isError && <ErrorMessage error={remove.error} />}
      {events && (
        <QueryState query={events} loading="Loading deliveries">
          {(deliveries) => (
            <DeliveriesTable
              fullPath={fullPath}
              target={`hooks/${hook.id}`}
              label={hook.url}
              deliveries={deliveries}
              onRefresh={() => events.refetch()}
            />
          )}
        </QueryState>
      )}
    </li>
  );
}

/** `/<full_path>/-/hooks`: project webhooks, their recent events and Resend (Maintainer+). */
export default function HooksPage() {
  const { project, fullPath } = useCurrentProject();
  useDocumentTitle(`Webhooks · ${project.name}`);
  const hooks = useHooks(fullPath);
  const add = useAddHook(fullPath);
  // The hooks whose recent events are open, and those events.
  const [eventsShown, setEventsShown] = useState<number[]>([]);
  const events = useDeliveries(
    fullPath,
    eventsShown.map((id) => `hooks/${id}` as const),
  );
  const toggleEvents = (id: number) => setEventsShown((ids) => (ids.includes(id) ? ids.filter((i) => i !== id) : [...ids, id]));
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
        <QueryState query={hooks} loading="Loading webhooks" isEmpty={(list) => list.length === 0} empty="No webhooks enabled.">
          {(list) => (
            <ul className="stack plain">
              {list.map((h) => {
                const shown = eventsShown.indexOf(h.id);
                return (
                  <HookRow
                    key={h.id}
                    fullPath={fullPath}
                    hook={h}
                    events={shown < 0 ? undefined : events[shown]}
                    onToggleEvents={() => toggleEvents(h.id)}
                  />
                );
              })}
            </ul>
          )}
        </QueryState>
      </section>
    </>
  );
}
