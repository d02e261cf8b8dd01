import { type FormEvent, useState } from "react";
import { ErrorMessage } from "../ui/ErrorMessage";
import { useSaveAlertSettings } from "./api";
import type { AlertSettings } from "./types";

const OPTIONS: { key: keyof AlertSettings; label: string }[] = [
  { key: "create_incident", label: "Create an incident. Incidents are created for each alert triggered." },
  {
    key: "auto_close_incident",
    label: "Automatically close associated incident when a recovery alert notification resolves an alert",
  },
  { key: "send_email", label: "Send a single email notification to Owners and Maintainers for new alerts." },
];

/** The project's alert settings; the state starts from `current`, read by the page before it mounts. */
export function AlertSettingsForm({ fullPath, current }: { fullPath: string; current: AlertSettings }) {
  const save = useSaveAlertSettings(fullPath);
  const [values, setValues] = useState<AlertSettings>(current);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate(values);
  };
  return (
    <form className="stack" onSubmit={submit}>
      {OPTIONS.map((o) => (
        <label key={o.key} className="check">
          <input type="checkbox" checked={values[o.key]} onChange={(e) => setValues({ ...values, [o.key]: e.target.checked })} />
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
  );
}
