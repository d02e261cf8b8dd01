import { useEffect, useId, useRef, useState } from "react";
import { ErrorMessage } from "../ui/ErrorMessage";
import type { NotificationSetting, SettingChange } from "./api";
import { EVENTS } from "./levels";

interface Props {
  title: string;
  setting: NotificationSetting;
  onSave: (change: SettingChange) => Promise<NotificationSetting>;
  onClose: () => void;
  onSaved: (message: string) => void;
}

/** The custom events of one setting as checkboxes; each change is saved at once. */
export function CustomEventsDialog({ title, setting, onSave, onClose, onSaved }: Props) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
  }, []);
  // What was just clicked shows at once; it falls back to the saved setting once saved (or refused).
  const [clicked, setClicked] = useState<Record<string, boolean>>({});
  const events = { ...setting.events, ...clicked };
  // new_epic only where the API returns it (groups on Ultimate, and the global setting of their members).
  const shown = EVENTS.filter((e) => e.name !== "new_epic" || "new_epic" in events);
  const toggle = (name: string, label: string, on: boolean) => {
    setClicked((c) => ({ ...c, [name]: on }));
    setError(null);
    const settled = () =>
      setClicked((c) => {
        const { [name]: _, ...rest } = c;
        return rest;
      });
    onSave({ level: "custom", [name]: on }).then(
      () => {
        settled();
        onSaved(`${label} ${on ? "on" : "off"}: notification settings saved.`);
      },
      (err: unknown) => {
        settled();
        setError(err);
      },
    );
  };
  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
    >
      <h2 id={titleId}>{title}</h2>
      <div className="dialog-body stack">
        <p>
          Custom notification levels are the same as participating levels. With custom notification levels you will also receive
          notifications for the events you choose.
        </p>
        <fieldset>
          <legend>Notification events</legend>
          {shown.map((e) => (
            <label key={e.name} className="check">
              <input
                type="checkbox"
                checked={events[e.name] === true}
                onChange={(ev) => toggle(e.name, e.label, ev.target.checked)}
              />
              <span>{e.label}</span>
            </label>
          ))}
        </fieldset>
        {error ? <ErrorMessage error={error} /> : null}
      </div>
      <div className="actions">
        <button type="button" className="primary" onClick={onClose}>
          Done
        </button>
      </div>
    </dialog>
  );
}
