import { type FormEvent, useState } from "react";
import { ErrorMessage } from "../ui/ErrorMessage";
import { Field } from "../ui/Field";
import { QueryState } from "../ui/QueryState";
import { type useDeliveries, useSaveChatIntegration, useTestChatIntegration } from "./api";
import { DeliveriesTable } from "./DeliveriesTable";
import { CHAT_TITLES, type ChatIntegration, type ChatName } from "./types";

type DeliveriesQuery = ReturnType<typeof useDeliveries>[number];

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

/** The form's values from the saved integration (the webhook is write-only: it starts empty). */
function valuesOf(current: ChatIntegration | null): Values {
  if (!current) return EMPTY;
  const p = current.properties;
  return {
    webhook: "",
    username: p.username,
    channel: p.channel,
    alert_events: current.alert_events,
    alert_channel: p.alert_channel,
    incidents_events: current.incident_events,
    incident_channel: p.incident_channel,
  };
}

interface Props {
  fullPath: string;
  name: ChatName;
  /** The saved integration (null: never saved), read by the page; the form's state starts from it. */
  current: ChatIntegration | null;
  /** Its recent deliveries, read by the page once it is saved. */
  deliveries: DeliveriesQuery | undefined;
}

/** One chat integration: GitLab's form (webhook, username, channels, triggers), Test settings, recent deliveries. */
export function ChatIntegrationForm({ fullPath, name, current, deliveries }: Props) {
  const save = useSaveChatIntegration(fullPath, name);
  const test = useTestChatIntegration(fullPath, name);
  const [values, setValues] = useState<Values>(() => valuesOf(current));
  const title = CHAT_TITLES[name];
  const chat = name !== "microsoft-teams";
  const submit = (e: FormEvent) => {
    e.preventDefault();
    // The webhook is write-only: left empty, the saved one stays; once saved, the field empties again.
    const { webhook, ...rest } = values;
    save.mutate(webhook ? values : rest, { onSuccess: () => setValues((v) => ({ ...v, webhook: "" })) });
  };
  const text = (key: keyof Values, label: string) => (
    <Field label={label}>
      {(control) => (
        <input {...control} value={String(values[key])} onChange={(e) => setValues({ ...values, [key]: e.target.value })} />
      )}
    </Field>
  );
  const check = (key: "alert_events" | "incidents_events", label: string) => (
    <label className="check">
      <input type="checkbox" checked={values[key]} onChange={(e) => setValues({ ...values, [key]: e.target.checked })} />
      <span>{label}</span>
    </label>
  );
  return (
    <>
      {
        <form className="stack" onSubmit={submit} aria-label={title}>
          {current?.alert_status === "disabled" && (
            <p role="alert" className="message error">
              The receiver answered 410 Gone: deliveries are off until the webhook URL changes.
            </p>
          )}
          <Field label="Webhook URL" hint={current && `Saved: ${current.properties.webhook}. Leave empty to keep it.`}>
            {(control) => (
              <input
                {...control}
                type="url"
                required={!current}
                value={values.webhook}
                placeholder={current?.properties.webhook ?? "https://"}
                onChange={(e) => setValues({ ...values, webhook: e.target.value })}
              />
            )}
          </Field>
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
              disabled={!current || test.isPending}
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
      }
      {deliveries && (
        <QueryState query={deliveries} loading="Loading deliveries">
          {(list) => (
            <DeliveriesTable
              fullPath={fullPath}
              target={`integrations/${name}`}
              label={title}
              deliveries={list}
              onRefresh={() => deliveries.refetch()}
            />
          )}
        </QueryState>
      )}
    </>
  );
}
