import { useEffect, useId, useRef, useState } from "react";
import { ErrorMessage } from "../ui/ErrorMessage";
import { type Source, useNotificationSetting, useSaveNotificationSetting } from "./api";
import { EVENTS } from "./levels";

interface Props {
  source: Source;
  title: string;
  onClose: () => void;
  onSaved: (message: string) => void;
}

/** The custom events of one setting as checkboxes; each change is saved at once. */
export function CustomEventsDialog({ source, title, onClose, onSaved }: Props) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const setting = useNotificationSetting(source);
  const save = useSaveNotificationSetting(source);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
  }, []);
  // What was just clicked shows at once; it falls back to the API's answer once saved (or refused).
  const [clicked, setClicked] = useState<Record<string, boolean>>({});
  const events = { ...setting.data?.events, ...clicked };
  // new_epic only where the API returns it (groups on Ultimate, and the global setting of their members).
  const shown = EVENTS.filter((e) => e.name !== "new_epic" || "new_epic" in events);
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
                onChange={(ev) => {
                  const on = ev.target.checked;
                  setClicked((c) => ({ ...c, [e.name]: on }));
                  save.mutate(
                    { level: "custom", [e.name]: on },
                    {
                      onSuccess: () => onSaved(`${e.label} ${on ? "on" : "off"}: notification settings saved.`),
                      onSettled: () =>
                        setClicked((c) => {
                          const { [e.name]: _, ...rest } = c;
                          return rest;
                        }),
                    },
                  );
                }}
              />
              <span>{e.label}</span>
            </label>
          ))}
        </fieldset>
        {save.isError && <ErrorMessage error={save.error} />}
        {setting.isError && <ErrorMessage error={setting.error} />}
      </div>
      <div className="actions">
        <button type="button" className="primary" onClick={onClose}>
          Done
        </button>
      </div>
    </dialog>
  );
}
