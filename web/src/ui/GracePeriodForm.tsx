import { type FormEvent, useState } from "react";
import { Field } from "./Field";

interface Props {
  /** What keeps working during the grace, for the field's label: "key", "secret". */
  what: string;
  /** The submit button's text. */
  action: string;
  busy: boolean;
  onRotate: (gracePeriodSeconds: number) => void;
}

/** A rotation with a grace period (0 to 86 400 s, 3600 proposed): integration keys and hook signing secrets. */
export function GracePeriodForm({ what, action, busy, onRotate }: Props) {
  const [grace, setGrace] = useState("3600");
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onRotate(Number(grace));
  };
  return (
    <form className="toolbar" onSubmit={submit}>
      <Field label={`Grace period for the old ${what} (seconds)`} inline>
        {(control) => (
          <input
            {...control}
            type="number"
            min={0}
            max={86400}
            required
            value={grace}
            onChange={(e) => setGrace(e.target.value)}
          />
        )}
      </Field>
      <button type="submit" disabled={busy}>
        {action}
      </button>
    </form>
  );
}
