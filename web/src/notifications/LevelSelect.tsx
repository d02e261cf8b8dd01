import { useState } from "react";
import { ErrorMessage } from "../ui/ErrorMessage";
import { type Source, useNotificationSetting, useSaveNotificationSetting } from "./api";
import { CustomEventsDialog } from "./CustomEventsDialog";
import { LEVELS, levelHelp } from "./levels";

interface Props {
  source: Source;
  /** The accessible name of the select, e.g. "Notification level for ops/web". */
  label: string;
  onSaved: (message: string) => void;
}

/** A level select saved on change; Custom opens the events dialog. */
export function LevelSelect({ source, label, onSaved }: Props) {
  const setting = useNotificationSetting(source);
  const save = useSaveNotificationSetting(source);
  const [dialog, setDialog] = useState(false);
  if (setting.isPending) return <span className="loading">Loading…</span>;
  if (setting.isError) return <ErrorMessage error={setting.error} />;
  const levels = source.kind === "global" ? LEVELS.filter((l) => l.value !== "global") : LEVELS;
  const level = save.isPending && save.variables?.level ? String(save.variables.level) : setting.data.level;
  const change = (value: string) =>
    save.mutate(
      { level: value },
      {
        onSuccess: () => {
          onSaved(`${label}: ${LEVELS.find((l) => l.value === value)?.label ?? value}. Notification settings saved.`);
          if (value === "custom") setDialog(true);
        },
      },
    );
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
        {setting.data.level === "custom" && (
          <button type="button" aria-label={`Custom events: ${label}`} onClick={() => setDialog(true)}>
            Custom events
          </button>
        )}
      </div>
      <span className="muted help">{levelHelp(level)}</span>
      {save.isError && <ErrorMessage error={save.error} />}
      {dialog && (
        <CustomEventsDialog
          source={source}
          title={`Custom notification events: ${label.replace(/^Notification level for /, "")}`}
          onClose={() => setDialog(false)}
          onSaved={onSaved}
        />
      )}
    </div>
  );
}
