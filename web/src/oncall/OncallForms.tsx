import { type FormEvent, useState } from "react";
import { ErrorMessage } from "../ui/ErrorMessage";
import { Field } from "../ui/Field";
import { useCreateOverride, useCreateSchedule } from "./api";
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
        <Field label="Schedule name">
          {(control) => <input {...control} required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} />}
        </Field>
        <Field label="Time zone">
          {(control) => (
            <select {...control} value={timezone} onChange={(e) => setTimezone(e.target.value)}>
              {zones().map((z) => (
                <option key={z}>{z}</option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Description (optional)">
          {(control) => (
            <input {...control} maxLength={1000} value={description} onChange={(e) => setDescription(e.target.value)} />
          )}
        </Field>
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

export const usernames = (text: string) =>
  text
    .split(/[\s,]+/)
    .map((u) => u.replace(/^@/, ""))
    .filter((u) => u !== "");

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
      <Field label="Who is on call instead (username)">
        {(control) => <input {...control} required value={username} onChange={(e) => setUsername(e.target.value)} />}
      </Field>
      <Field label="From (your time)">
        {(control) => (
          <input {...control} required type="datetime-local" value={startsAt} onChange={(e) => setStartsAt(e.target.value)} />
        )}
      </Field>
      <Field label="Until (your time)">
        {(control) => (
          <input {...control} required type="datetime-local" value={endsAt} onChange={(e) => setEndsAt(e.target.value)} />
        )}
      </Field>
      {create.isError && <ErrorMessage error={create.error} />}
      <div className="actions">
        <button type="submit" className="primary" disabled={create.isPending}>
          Add override
        </button>
      </div>
    </form>
  );
}
