import { type FormEvent, useState } from "react";
import { ErrorMessage } from "../ui/ErrorMessage";
import { Field } from "../ui/Field";
import { type Rotation, useSaveRotation } from "./api";
import { usernames } from "./OncallForms";

interface Props {
  fullPath: string;
  iid: number;
  scheduleName: string;
  /** The rotation to edit; a new one otherwise. */
  rotation?: Rotation;
  onDone?: () => void;
}

/** Adds a rotation to a schedule or edits one: every field of section 11, checked by the API. */
export function RotationForm({ fullPath, iid, scheduleName, rotation, onDone }: Props) {
  const [name, setName] = useState(rotation?.name ?? "");
  const [startsAt, setStartsAt] = useState(rotation?.starts_at ?? "");
  const [endsAt, setEndsAt] = useState(rotation?.ends_at ?? "");
  const [length, setLength] = useState(String(rotation?.rotation_length.length ?? 1));
  const [unit, setUnit] = useState<string>(rotation?.rotation_length.unit ?? "weeks");
  const [activeFrom, setActiveFrom] = useState(rotation?.active_period?.start_time ?? "");
  const [activeUntil, setActiveUntil] = useState(rotation?.active_period?.end_time ?? "");
  const [participants, setParticipants] = useState(rotation?.participants.map((p) => p.user.username).join(", ") ?? "");
  const save = useSaveRotation(fullPath, iid);
  const id = `rotation-${iid}-${rotation?.id ?? "new"}`;
  const title = rotation ? `Edit rotation ${rotation.name}` : `Add a rotation to ${scheduleName}`;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const body = {
      name: name.trim(),
      starts_at: startsAt.slice(0, 16),
      ends_at: endsAt ? endsAt.slice(0, 16) : null,
      rotation_length: { length: Number(length), unit },
      active_period: activeFrom || activeUntil ? { start_time: activeFrom, end_time: activeUntil } : null,
      participants: usernames(participants).map((username) => ({ username })),
    };
    save.mutate(
      { id: rotation?.id, body },
      {
        onSuccess: () => {
          if (!rotation) setName("");
          onDone?.();
        },
      },
    );
  };
  return (
    <form className="stack card" onSubmit={submit} aria-labelledby={`${id}-title`}>
      <h4 id={`${id}-title`}>{title}</h4>
      <Field label="Rotation name">
        {(control) => <input {...control} required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} />}
      </Field>
      <Field label="Starts at (in the schedule's time zone)">
        {(control) => (
          <input {...control} required type="datetime-local" value={startsAt} onChange={(e) => setStartsAt(e.target.value)} />
        )}
      </Field>
      <Field label="Ends at (optional, in the schedule's time zone)">
        {(control) => <input {...control} type="datetime-local" value={endsAt} onChange={(e) => setEndsAt(e.target.value)} />}
      </Field>
      <Field label="Hand over every">
        {(control) => (
          <input
            {...control}
            required
            type="number"
            min={1}
            max={1000}
            value={length}
            onChange={(e) => setLength(e.target.value)}
          />
        )}
      </Field>
      <Field label="Unit">
        {(control) => (
          <select {...control} value={unit} onChange={(e) => setUnit(e.target.value)}>
            <option value="hours">hours</option>
            <option value="days">days</option>
            <option value="weeks">weeks</option>
          </select>
        )}
      </Field>
      <Field label="On call daily from (optional; not with hours)">
        {(control) => <input {...control} type="time" value={activeFrom} onChange={(e) => setActiveFrom(e.target.value)} />}
      </Field>
      <Field label={<>On call daily until (before "from" = overnight)</>}>
        {(control) => <input {...control} type="time" value={activeUntil} onChange={(e) => setActiveUntil(e.target.value)} />}
      </Field>
      <Field label="Participants (usernames in hand-over order)">
        {(control) => <input {...control} required value={participants} onChange={(e) => setParticipants(e.target.value)} />}
      </Field>
      {save.isError && <ErrorMessage error={save.error} />}
      <div className="actions">
        <button type="submit" className="primary" disabled={save.isPending}>
          {rotation ? "Save rotation" : "Add rotation"}
        </button>
        {onDone && (
          <button type="button" onClick={onDone}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}
