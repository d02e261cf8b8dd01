import { type FormEvent, useEffect, useState } from "react";
import { ErrorMessage } from "../ui/ErrorMessage";
import { Loading } from "../ui/Loading";
import { useAlertSettings, useSaveAlertSettings } from "./api";
import type { AlertSettings } from "./types";

const OPTIONS: { key: keyof AlertSettings; label: string }[] = [
  { key: "create_incident", label: "Create an incident. Incidents are created for each alert triggered." },
  {
    key: "auto_close_incident",
    label: "Automatically close associated incident when a recovery alert notification resolves an alert",
  },
  { key: "send_email", label: "Send a single email notification to Owners and Maintainers for new alerts." },
];

export function AlertSettingsForm({ fullPath }: { fullPath: string }) {
  const current = useAlertSettings(fullPath);
  const save = useSaveAlertSettings(fullPath);
  const [values, setValues] = useState<AlertSettings | null>(null);
  useEffect(() => {
    if (current.data) setValues(current.data);
  }, [current.data]);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (values) save.mutate(values);
  };
  return (
    <section className="card" aria-labelledby="alert-settings-title">
      <h3 id="alert-settings-title">Alert settings</h3>
      {current.isError ? (
        <ErrorMessage error={current.error} />
      ) : !values ? (
        <Loading />
      ) : (
        <form className="stack" onSubmit={submit}>
          {OPTIONS.map((o) => (
            <label key={o.key} className="check">
              <input
                type="checkbox"
                checked={values[o.key]}
                onChange={(e) => setValues({ ...values, [o.key]: e.target.checked })}
              />
              <span>{o.label}</span>
            </label>
          ))}
          {save.isError && <ErrorMessage error={save.error} />}
          {save.isSuccess && (
            <p role="status" className="message success">
              Alert settings saved.
            </p>
          )}
          <div className="actions">
            <button type="submit" className="primary" disabled={save.isPending}>
              Save changes
            </button>
          </div>
        </form>
      )}
    </section>
  );
}
