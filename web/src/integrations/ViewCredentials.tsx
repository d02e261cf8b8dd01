import { useId, useState } from "react";
import { ConfirmDialog } from "../ui/ConfirmDialog";
import { CopyButton } from "../ui/CopyButton";
import { ErrorMessage } from "../ui/ErrorMessage";
import { useResetToken } from "./api";
import type { Integration } from "./types";

function CopyField({ label, value }: { label: string; value: string }) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <div className="with-button">
        <input id={id} readOnly value={value} className="mono" onFocus={(e) => e.target.select()} />
        <CopyButton text={value} label={`Copy ${label.toLowerCase()}`} />
      </div>
    </div>
  );
}

export function ViewCredentials({ fullPath, integration }: { fullPath: string; integration: Integration }) {
  const [confirming, setConfirming] = useState(false);
  const reset = useResetToken(fullPath, integration.type, integration.id);
  const url = integration.url ?? "";
  const token = integration.token ?? "";
  const curl = [
    `curl --request POST ${url} \\`,
    `  --header "Authorization: Bearer ${token}" \\`,
    `  --header "Content-Type: application/json" \\`,
    `  --data '{"title": "Something is wrong", "severity": "high", "fingerprint": "example"}'`,
  ].join("\n");
  return (
    <div className="stack">
      <p>Use the webhook URL and the authorization key to send alerts to this integration from your monitoring tool.</p>
      <CopyField label="Webhook URL" value={url} />
      <CopyField label="Authorization key" value={token} />
      <div>
        <button type="button" className="danger" onClick={() => setConfirming(true)}>
          Reset key
        </button>
      </div>
      {reset.isError && <ErrorMessage error={reset.error} />}
      {reset.isSuccess && (
        <p role="status" className="message success">
          The authorization key was reset. The old key no longer works.
        </p>
      )}
      <h4>Example request</h4>
      <CopyButton text={curl} label="Copy example request" />
      <pre className="code">{curl}</pre>
      <ConfirmDialog
        open={confirming}
        title="Reset key"
        confirmLabel="Reset key"
        danger
        busy={reset.isPending}
        onCancel={() => setConfirming(false)}
        onConfirm={() => reset.mutate(0, { onSettled: () => setConfirming(false) })}
      >
        <p>
          Resetting the authorization key of this integration will require updating it in every alert source that sends to it. The
          old key stops working at once.
        </p>
      </ConfirmDialog>
    </div>
  );
}
