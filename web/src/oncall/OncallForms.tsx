import { type FormEvent, useState } from "react";
import { ErrorMessage } from "../ui/ErrorMessage";
import { useCreateOverride, useCreateRotation, useCreateSchedule } from "./api";
import { viewerZone } from "./zone";

const zones = (): string[] => {
  const all = (Intl as { supportedValuesOf?: (k: string) => string[] }).supportedValuesOf?.("timeZone") ?? [];
  return all.includes("UTC") ? all : ["UTC", ...all];
};

export function ScheduleForm({ fullPath }: { fullPath: string }) {
  const [name, setName] = useState("");
  const [timezone, setTimezone] = useState(viewerZone());
  const [description, setDescription] = useState("");
  const create = useCreateSchedule(fullPath);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate({ name: name.trim(), timezone, description }, { onSuccess: () => setName("") });
  };
  return (
    <section className="card" aria-labelledby="add-schedule-title">
      <h2 id="add-schedule-title">Add a schedule</h2>
      <form className="stack" onSubmit={submit}>
        <label className="field">
          <span>Schedule name</span>
          <input required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} />
        </label>
        <label className="field">
          <span>Time zone</span>
          <select value={timezone} onChange={(e) => setTimezone(e.target.value)}>
            {zones().map((z) => (
              <option key={z}>{z}</option>
            ))}
          </select>
        </label>
        <label className="field">
          <span>Description (optional)</span>
          <input maxLength={1000} value={description} onChange={(e) => setDescription(e.target.value)} />
        </label>
        {create.isError && <ErrorMessage error={create.error} />}
        <div className="actions">
          <button type="submit" className="primary" disabled={create.isPending}>
            Add schedule
          </button>
        </div>
      </form>
    </section>
  );
}

const usernames = (text: string) =>
  text
    .split(/[\s,]+/)
    .map((u) => u.replace(/^@/, ""))
    .filter((u) => u !== "");

export function RotationForm({ fullPath, iid, scheduleName }: { fullPath: string; iid: number; scheduleName: string }) {
  const [name, setName] = useState("");
  const [startsAt, setStartsAt] = useState("");
  const [length, setLength] = useState("1");
  const [unit, setUnit] = useState("weeks");
  const [participants, setParticipants] = useState("");
  const create = useCreateRotation(fullPath, iid);
  const id = `rotation-${iid}`;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const body = {
      name: name.trim(),
      starts_at: startsAt.slice(0, 16),
      rotation_length: { length: Number(length), unit },
      participants: usernames(participants).map((username) => ({ username })),
    };
    create.mutate(body, { onSuccess: () => setName("") });
  };
  return (
    <form className="stack card" onSubmit={submit} aria-labelledby={`${id}-title`}>
      <h4 id={`${id}-title`}>Add a rotation to {scheduleName}</h4>
      <label className="field">
        <span>Rotation name</span>
        <input required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} />
      </label>
      <label className="field">
        <span>Starts at (in the schedule's time zone)</span>
        <input required type="datetime-local" value={startsAt} onChange={(e) => setStartsAt(e.target.value)} />
      </label>
      <label className="field">
        <span>Hand over every</span>
        <input required type="number" min={1} max={1000} value={length} onChange={(e) => setLength(e.target.value)} />
      </label>
      <label className="field">
        <span>Unit</span>
        <select value={unit} onChange={(e) => setUnit(e.target.value)}>
          <option value="hours">hours</option>
          <option value="days">days</option>
          <option value="weeks">weeks</option>
        </select>
      </label>
      <label className="field">
        <span>Participants (usernames in hand-over order)</span>
        <input required value={participants} onChange={(e) => setParticipants(e.target.value)} />
      </label>
      {create.isError && <ErrorMessage error={create.error} />}
      <div className="actions">
        <button type="submit" className="primary" disabled={create.isPending}>
          Add rotation
        </button>
      </div>
    </form>
  );
}

export function OverrideForm({ fullPath, iid, scheduleName }: { fullPath: string; iid: number; scheduleName: string }) {
  const [username, setUsername] = useState("");
  const [startsAt, setStartsAt] = useState("");
  const [endsAt, setEndsAt] = useState("");
  const create = useCreateOverride(fullPath, iid);
  const id = `override-${iid}`;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    // datetime-local is the viewer's own clock; the API takes instants with an offset.
    const instant = (local: string) => new Date(local).toISOString();
    create.mutate(
      { username: usernames(username)[0] ?? "", starts_at: instant(startsAt), ends_at: instant(endsAt) },
      { onSuccess: () => setUsername("") },
    );
  };
  return (
    <form className="stack card" onSubmit={submit} aria-labelledby={`${id}-title`}>
      <h4 id={`${id}-title`}>Add an override to {scheduleName}</h4>
      <label className="field">
        <span>Who is on call instead (username)</span>
        <input required value={username} onChange={(e) => setUsername(e.target.value)} />
      </label>
      <label className="field">
        <span>From (your time)</span>
        <input required type="datetime-local" value={startsAt} onChange={(e) => setStartsAt(e.target.value)} />
      </label>
      <label className="field">
        <span>Until (your time)</span>
        <input required type="datetime-local" value={endsAt} onChange={(e) => setEndsAt(e.target.value)} />
      </label>
      {create.isError && <ErrorMessage error={create.error} />}
      <div className="actions">
        <button type="submit" className="primary" disabled={create.isPending}>
          Add override
        </button>
      </div>
    </form>
  );
}
