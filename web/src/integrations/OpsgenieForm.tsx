import { type FormEvent, useEffect, useState } from "react";
import { ErrorMessage } from "../ui/ErrorMessage";
import { Loading } from "../ui/Loading";
import { useOpsgenie, useSaveOpsgenie } from "./api";

export function OpsgenieForm({ fullPath }: { fullPath: string }) {
  const current = useOpsgenie(fullPath);
  const save = useSaveOpsgenie(fullPath);
  const [active, setActive] = useState(false);
  const [apiUrl, setApiUrl] = useState("");
  useEffect(() => {
    if (current.data) {
      setActive(current.data.active);
      setApiUrl(current.data.api_url);
    }
  }, [current.data]);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate({ active, api_url: apiUrl.trim() });
  };
  return (
    <section className="card" aria-labelledby="opsgenie-title">
      <h3 id="opsgenie-title">Opsgenie</h3>
      <p>While the Opsgenie link is active, alerts are managed in Opsgenie and no other integration can be active.</p>
      {current.isPending ? (
        <Loading />
      ) : current.isError ? (
        <ErrorMessage error={current.error} />
      ) : (
        <form className="stack" onSubmit={submit}>
          <label className="check">
            <input type="checkbox" checked={active} onChange={(e) => setActive(e.target.checked)} />
            <span>Active</span>
          </label>
          <label className="field">
            <span>Opsgenie API URL</span>
            <input
              type="url"
              value={apiUrl}
              placeholder="https://example.app.opsgenie.com/alert/list"
              onChange={(e) => setApiUrl(e.target.value)}
            />
          </label>
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
      )}
    </section>
  );
}
