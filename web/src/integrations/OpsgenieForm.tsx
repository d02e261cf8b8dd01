import { type FormEvent, useState } from "react";
import { ErrorMessage } from "../ui/ErrorMessage";
import { Field } from "../ui/Field";
import { type OpsgenieLink, useSaveOpsgenie } from "./api";

/** The Opsgenie link's form; its state starts from `current`, read by the page before it mounts. */
export function OpsgenieForm({ fullPath, current }: { fullPath: string; current: OpsgenieLink }) {
  const save = useSaveOpsgenie(fullPath);
  const [active, setActive] = useState(current.active);
  const [apiUrl, setApiUrl] = useState(current.api_url);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate({ active, api_url: apiUrl.trim() });
  };
  return (
    <form className="stack" onSubmit={submit}>
      <label className="check">
        <input type="checkbox" checked={active} onChange={(e) => setActive(e.target.checked)} />
        <span>Active</span>
      </label>
      <Field label="Opsgenie API URL">
        {(control) => (
          <input
            {...control}
            type="url"
            value={apiUrl}
            placeholder="https://example.app.opsgenie.com/alert/list"
            onChange={(e) => setApiUrl(e.target.value)}
          />
        )}
      </Field>
      {save.isError && <ErrorMessage error={save.error} />}
      {save.isSuccess && (
        <p role="status" className="message success">
          Opsgenie settings saved.
        </p>
      )}
      <div className="actions">
        <button type="submit" className="primary" disabled={save.isPending}>
          Save Opsgenie settings
        </button>
      </div>
    </form>
  );
}
