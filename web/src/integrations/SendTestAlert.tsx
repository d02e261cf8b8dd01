import { useState } from "react";
import { Link } from "react-router";
import { projectPath } from "../projects/address";
import { ErrorMessage } from "../ui/ErrorMessage";
import { Field } from "../ui/Field";
import { useSendTestAlert } from "./api";
import { type DryRun, SAMPLE_PAYLOAD } from "./types";

function actionSentence(d: DryRun): string {
  switch (d.action) {
    case "increment":
      return `It would be counted as one more event of open alert #${d.existing_alert_iid}.`;
    case "resolve":
      return `It would resolve open alert #${d.existing_alert_iid}.`;
    case "create_resolved":
      return "It would be recorded as a new alert that is already resolved (no open alert matches).";
    default:
      return "It would create a new alert.";
  }
}

function WhatWouldHappen({ dryRun }: { dryRun: DryRun }) {
  return (
    <section className="card" aria-labelledby="dry-run-title">
      <h4 id="dry-run-title">What would happen</h4>
      <ul>
        <li>{actionSentence(dryRun)}</li>
        <li>
          Fingerprint: <span className="mono">{dryRun.fingerprint ?? "none (no grouping)"}</span>
        </li>
        {dryRun.would_create_incident && <li>An incident would be opened.</li>}
        {dryRun.would_close_incident && <li>The alert's incident would be closed.</li>}
        <li>Nothing was changed: this was a dry run.</li>
      </ul>
      {dryRun.alert && (
        <>
          <h5>The alert as it would be stored</h5>
          <pre className="code">{JSON.stringify(dryRun.alert, null, 2)}</pre>
        </>
      )}
    </section>
  );
}

/** The Send test alert tab: a JSON editor with a sample, sent as typed (the API judges it). */
export function SendTestAlert({ fullPath, integrationId }: { fullPath: string; integrationId: number }) {
  const [payload, setPayload] = useState(JSON.stringify(SAMPLE_PAYLOAD, null, 2));
  const send = useSendTestAlert(fullPath, integrationId);
  const answer = send.data;
  return (
    <div className="stack">
      <p>Provide an example payload from the monitoring tool you intend to integrate with, and send it to this integration.</p>
      <Field label="Alert test payload">
        {(control) => (
          <textarea
            {...control}
            className="mono"
            rows={14}
            spellCheck={false}
            value={payload}
            onChange={(e) => {
              setPayload(e.target.value);
              send.reset();
            }}
          />
        )}
      </Field>
      <div className="actions">
        <button
          type="button"
          className="primary"
          disabled={send.isPending}
          onClick={() => send.mutate({ payload, dryRun: false })}
        >
          Send
        </button>
        <button type="button" disabled={send.isPending} onClick={() => send.mutate({ payload, dryRun: true })}>
          Dry run
        </button>
      </div>
      {send.isError && <ErrorMessage error={send.error} />}
      {answer && !answer.dry_run && (
        <p role="status" className="message success">
          {answer.message}{" "}
          {answer.alert && (
            <Link to={projectPath(fullPath, "alert_management", answer.alert.iid, "details")}>
              View alert #{answer.alert.iid}
            </Link>
          )}
        </p>
      )}
      {answer?.dry_run && <WhatWouldHappen dryRun={answer.dry_run} />}
    </div>
  );
}
