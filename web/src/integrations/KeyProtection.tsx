import { useState } from "react";
import { ConfirmDialog } from "../ui/ConfirmDialog";
import { CopyButton } from "../ui/CopyButton";
import { ErrorMessage } from "../ui/ErrorMessage";
import { GracePeriodForm } from "../ui/GracePeriodForm";
import { Time } from "../ui/Time";
import { useResetToken, useSigningSecret } from "./api";
import type { Integration } from "./types";

/** Key rotation with a grace period, and (HTTP endpoints) the signing secret: PRODUCT.md section 10. */
export function KeyProtection({ fullPath, integration }: { fullPath: string; integration: Integration }) {
  const reset = useResetToken(fullPath, integration.type, integration.id);
  return (
    <section className="stack" aria-labelledby={`key-${integration.id}`}>
      <h3 id={`key-${integration.id}`}>Key rotation</h3>
      <dl className="facts">
        <dt>Last used</dt>
        <dd>{integration.token_last_used_at ? <Time iso={integration.token_last_used_at} /> : "Never"}</dd>
        <dt>Previous key</dt>
        <dd>
          {integration.previous_token_expires_at ? (
            <>
              works until <Time iso={integration.previous_token_expires_at} />
            </>
          ) : (
            "No longer works"
          )}
        </dd>
      </dl>
      <GracePeriodForm what="key" action="Rotate key" busy={reset.isPending} onRotate={(seconds) => reset.mutate(seconds)} />
      {reset.isError && <ErrorMessage error={reset.error} />}
      {reset.isSuccess && (
        <p role="status" className="message success">
          New key issued: see View credentials. The old key works during the grace period.
        </p>
      )}
      {integration.type === "http" && <SigningSecret fullPath={fullPath} integration={integration} />}
    </section>
  );
}

function SigningSecret({ fullPath, integration }: { fullPath: string; integration: Integration }) {
  const signing = useSigningSecret(fullPath, integration.id);
  const [confirming, setConfirming] = useState(false);
  const secret = typeof signing.data === "string" ? signing.data : null;
  return (
    <div className="stack">
      <h3>Signed payloads</h3>
      <p>
        {integration.signing_enabled
          ? "On: each post must carry X-Tocsin-Signature (HMAC-SHA256 of the timestamp and the body with the secret)."
          : "Off: posts need only the authorization key."}
      </p>
      {secret && (
        <div className="message info" role="status">
          <p>Signing secret (shown once; copy it now):</p>
          <code>{secret}</code> <CopyButton text={secret} label="Copy signing secret" />
        </div>
      )}
      {signing.isError && <ErrorMessage error={signing.error} />}
      <div className="actions">
        <button type="button" disabled={signing.isPending} onClick={() => signing.mutate("set")}>
          {integration.signing_enabled ? "Rotate signing secret" : "Create signing secret"}
        </button>
        {integration.signing_enabled && (
          <button type="button" className="danger" disabled={signing.isPending} onClick={() => setConfirming(true)}>
            Remove signing secret
          </button>
        )}
      </div>
      <ConfirmDialog
        open={confirming}
        title="Remove the signing secret?"
        confirmLabel="Remove signing secret"
        danger
        busy={signing.isPending}
        onConfirm={() => signing.mutate("remove", { onSettled: () => setConfirming(false) })}
        onCancel={() => setConfirming(false)}
      >
        <p>Posts will no longer need a signature: anyone with the authorization key can post alerts.</p>
      </ConfirmDialog>
    </div>
  );
}
