import { useState } from "react";
import { ErrorMessage } from "../ui/ErrorMessage";
import { useSubmit } from "../ui/submit";
import type { NotificationSetting, SettingChange } from "./api";
import { CustomEventsDialog } from "./CustomEventsDialog";
import { LEVELS, levelHelp } from "./levels";

interface Props {
  /** The global select offers five levels (`global` only means something for a group or project). */
  global?: boolean;
  /** The accessible name of the select, e.g. "Notification level for ops/web". */
  label: string;
  setting: NotificationSetting;
  onSave: (change: SettingChange) => Promise<NotificationSetting>;
  onSaved: (message: string) => void;
}

/** A level select saved on change; Custom opens the events dialog. */
export function LevelSelect({ global, label, setting, onSave, onSaved }: Props) {
  const save = useSubmit(onSave);
  const [dialog, setDialog] = useState(false);
  const levels = global ? LEVELS.filter((l) => l.value !== "global") : LEVELS;
  const level = save.pending?.level ? String(save.pending.level) : setting.level;
  const change = (value: string) =>
    save.submit({ level: value }, () => {
      onSaved(`${label}: ${LEVELS.find((l) => l.value === value)?.label ?? value}. Notification settings saved.`);
      if (value === "custom") setDialog(true);
    });
  return (
    <div className="stack">
      <div className="with-button">
        <select aria-label={label} value={level} disabled={save.isPending} onChange={(e) => change(e.target.value)}>
          {levels.map((l) => (
            <option key={l.value} value={l.value}>
              {l.label}
            </option>
          ))}
        </select>
        {setting.level === "custom" && (
          <button type="button" aria-label={`Custom events: ${label}`} onClick={() => setDialog(true)}>
            Custom events
          </button>
        )}
      </div>
      <span className="muted help">{levelHelp(level)}</span>
      {save.error ? <ErrorMessage error={save.error} /> : null}
      {dialog && (
        <CustomEventsDialog
          title={`Custom notification events: ${label.replace(/^Notification level for /, "")}`}
          setting={setting}
          onSave={onSave}
          onClose={() => setDialog(false)}
          onSaved={onSaved}
        />
      )}
    </div>
  );
}
