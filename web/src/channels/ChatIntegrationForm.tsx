import { type FormEvent, useEffect, useState } from "react";
import { ErrorMessage } from "../ui/ErrorMessage";
import { Loading } from "../ui/Loading";
import { useChatIntegration, useSaveChatIntegration, useTestChatIntegration } from "./api";
import { DeliveriesTable } from "./DeliveriesTable";
import { CHAT_TITLES, type ChatName } from "./types";

interface Values {
  webhook: string;
  username: string;
  channel: string;
  alert_events: boolean;
  alert_channel: string;
  incidents_events: boolean;
  incident_channel: string;
}

const EMPTY: Values = {
  webhook: "",
  username: "",
  channel: "",
  alert_events: true,
  alert_channel: "",
  incidents_events: false,
  incident_channel: "",
};

/** One chat integration: GitLab's form (webhook, username, channels, triggers), Test settings, recent deliveries. */
export function ChatIntegrationForm({ fullPath, name }: { fullPath: string; name: ChatName }) {
  const current = useChatIntegration(fullPath, name);
  const save = useSaveChatIntegration(fullPath, name);
  const test = useTestChatIntegration(fullPath, name);
  const [values, setValues] = useState<Values | null>(null);
  const title = CHAT_TITLES[name];
  const chat = name !== "microsoft-teams";
  useEffect(() => {
    if (current.data === undefined) return;
    const p = current.data?.properties;
    setValues(
      current.data && p
        ? {
            webhook: "",
            username: p.username,
            channel: p.channel,
            alert_events: current.data.alert_events,
            alert_channel: p.alert_channel,
            incidents_events: current.data.incident_events,
            incident_channel: p.incident_channel,
          }
        : EMPTY,
    );
  }, [current.data]);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!values) return;
    // The webhook is write-only: left empty, the saved one stays.
    const { webhook, ...rest } = values;
    save.mutate(webhook ? values : rest);
  };
  const text = (key: keyof Values, label: string, hint?: string) => (
    <label className="field">
      <span>{label}</span>
      <input value={String(values?.[key] ?? "")} onChange={(e) => values && setValues({ ...values, [key]: e.target.value })} />
      {hint && <span className="hint">{hint}</span>}
    </label>
  );
  const check = (key: "alert_events" | "incidents_events", label: string) => (
    <label className="check">
      <input
        type="checkbox"
        checked={!!values?.[key]}
        onChange={(e) => values && setValues({ ...values, [key]: e.target.checked })}
      />
      <span>{label}</span>
    </label>
  );
  const id = `chat-${name}`;
  return (
    <section className="card stack" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{title}</h2>
      {current.isError ? (
        <ErrorMessage error={current.error} />
      ) : !values ? (
        <Loading />
      ) : (
        <form className="stack" onSubmit={submit} aria-label={title}>
          {current.data?.alert_status === "disabled" && (
            <p role="alert" className="message error">
              The receiver answered 410 Gone: deliveries are off until the webhook URL changes.
            </p>
          )}
          <label className="field">
            <span>Webhook URL</span>
            <input
              type="url"
              required={!current.data}
              value={values.webhook}
              placeholder={current.data?.properties.webhook ?? "https://"}
              onChange={(e) => setValues({ ...values, webhook: e.target.value })}
            />
            {current.data && <span className="hint">Saved: {current.data.properties.webhook}. Leave empty to keep it.</span>}
          </label>
          {chat && text("username", "Username")}
          {chat && text("channel", "Default channel")}
          <fieldset className="stack">
            <legend>Trigger</legend>
            {check("alert_events", "Alert: a new alert, acknowledged, resolved or paged")}
            {chat && text("alert_channel", "Alert channel")}
            {check("incidents_events", "Incident: an incident opened or closed")}
            {chat && text("incident_channel", "Incident channel")}
          </fieldset>
          {save.isError && <ErrorMessage error={save.error} />}
          {save.isSuccess && (
            <p role="status" className="message success">
              {title} saved.
            </p>
          )}
          <div className="actions">
            <button type="submit" className="primary" disabled={save.isPending} aria-label={`Save changes to ${title}`}>
              Save changes
            </button>
            <button
              type="button"
              disabled={!current.data || test.isPending}
              onClick={() => test.mutate()}
              aria-label={`Test settings of ${title}`}
            >
              Test settings
            </button>
          </div>
          {test.isError && <ErrorMessage error={test.error} />}
          {test.data && (
            <p role="status" className={`message ${test.data.delivered ? "success" : "error"}`}>
              {test.data.delivered
                ? `Test message delivered (HTTP ${test.data.response_status}).`
                : `Test message failed: ${test.data.error ?? `HTTP ${test.data.response_status}`}.`}
            </p>
          )}
        </form>
      )}
      {current.data && <DeliveriesTable fullPath={fullPath} target={`integrations/${name}`} label={title} />}
    </section>
  );
}
