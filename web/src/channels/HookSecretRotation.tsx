import { CopyButton } from "../ui/CopyButton";
import { ErrorMessage } from "../ui/ErrorMessage";
import { GracePeriodForm } from "../ui/GracePeriodForm";
import { Time } from "../ui/Time";
import { useRotateHookSecret } from "./api";
import type { Hook } from "./types";

/**
 * A hook's signing secret rotation (PRODUCT.md section 12): the replaced secret keeps signing
 * beside the new one for the grace period, so that receivers can switch without losing a message.
 */
export function HookSecretRotation({ fullPath, hook }: { fullPath: string; hook: Hook }) {
  const rotate = useRotateHookSecret(fullPath, hook.id);
  const until = hook.previous_signing_secret_expires_at;
  const overlapping = until !== null && Date.parse(until) > Date.now();
  return (
    <section className="stack" aria-label={`Signing secret of ${hook.url}`}>
      <h3>Signing secret</h3>
      <dl className="facts">
        <dt>Previous signing secret</dt>
        <dd>
          {overlapping ? (
            <>
              also signs until <Time iso={until} />
            </>
          ) : (
            "No longer signs"
          )}
        </dd>
      </dl>
      <GracePeriodForm
        what="secret"
        action="Rotate signing secret"
        busy={rotate.isPending}
        onRotate={(seconds) => rotate.mutate(seconds)}
      />
      {rotate.isError && <ErrorMessage error={rotate.error} />}
      {rotate.data?.signing_secret && (
        <div role="status" className="message success stack">
          <p>New signing secret, shown only now:</p>
          <p>
            <code>{rotate.data.signing_secret}</code>{" "}
            <CopyButton text={rotate.data.signing_secret} label="Copy new signing secret" />
          </p>
        </div>
      )}
    </section>
  );
}
