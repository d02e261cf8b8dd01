import { useState } from "react";
import { ErrorMessage } from "../ui/ErrorMessage";
import { type QueryLike, QueryState } from "../ui/QueryState";
import {
  type OncallUser,
  type Override,
  type Rotation,
  type Schedule,
  type Shift,
  useDeleteOverride,
  useDeleteRotation,
} from "./api";
import { OverrideForm } from "./OncallForms";
import { RotationForm } from "./RotationForm";
import { Timeline } from "./Timeline";
import { formatIn } from "./zone";

interface Props {
  fullPath: string;
  schedule: Schedule;
  /** The zone times are shown in (the schedule's or the viewer's). */
  zone: string;
  canWrite: boolean;
  /** The timeline's window: 14 days from `from`. */
  from: number;
  to: number;
  now: number;
  /** The schedule's shifts in the window and its overrides, read by the page. */
  shifts: QueryLike<Shift[]>;
  overrides: QueryLike<Override[]>;
}

const STATE_NOTE: Record<OncallUser["state"], string> = {
  active: "",
  blocked: " (blocked: skipped)",
  removed: " (left the project: skipped)",
};

function UserName({ user }: { user: OncallUser }) {
  return (
    <span className={user.state === "active" ? undefined : "muted"}>
      {user.name} (@{user.username}){STATE_NOTE[user.state]}
    </span>
  );
}

function handOver(r: Rotation) {
  const { length, unit } = r.rotation_length;
  const every = length === 1 ? unit.replace(/s$/, "") : `${length} ${unit}`;
  const window = r.active_period ? `, on call ${r.active_period.start_time}–${r.active_period.end_time} daily` : "";
  return `every ${every} from ${r.starts_at.replace("T", " ")}${r.ends_at ? ` until ${r.ends_at.replace("T", " ")}` : ""}${window}`;
}

/** Participants with a stable key: a user may take several turns (ann, bob, ann). */
function slots(r: Rotation) {
  const seen = new Map<number, number>();
  return r.participants.map(({ user }) => {
    const turn = (seen.get(user.id) ?? 0) + 1;
    seen.set(user.id, turn);
    return { user, key: `${user.id}:${turn}` };
  });
}

/** One schedule: its rotations, the next 14 days of shifts, its overrides, and (Maintainer+) forms. */
export function ScheduleSection({ fullPath, schedule, zone, canWrite, from, to, now, shifts, overrides }: Props) {
  const remove = useDeleteOverride(fullPath, schedule.iid);
  const removeRotation = useDeleteRotation(fullPath, schedule.iid);
  const [editing, setEditing] = useState<number | undefined>();
  const edited = schedule.rotations.find((r) => r.id === editing);
  const titleId = `schedule-${schedule.iid}-title`;
  return (
    <section className="card" aria-labelledby={titleId}>
      <h2 id={titleId}>{schedule.name}</h2>
      <p className="muted">
        Time zone {schedule.timezone}
        {schedule.description ? ` · ${schedule.description}` : ""}
      </p>
      <h3>Rotations</h3>
      {schedule.rotations.length === 0 ? (
        <p className="empty">No rotations yet: nobody is on call in this schedule.</p>
      ) : (
        <table>
          <caption className="visually-hidden">Rotations of {schedule.name}</caption>
          <thead>
            <tr>
              <th scope="col">Rotation</th>
              <th scope="col">Hand-over</th>
              <th scope="col">Participants, in order</th>
              {canWrite && <th scope="col">Actions</th>}
            </tr>
          </thead>
          <tbody>
            {schedule.rotations.map((r) => (
              <tr key={r.id}>
                <td>{r.name}</td>
                <td>{handOver(r)}</td>
                <td>
                  <ol className="inline-list">
                    {slots(r).map(({ user, key }) => (
                      <li key={key}>
                        <UserName user={user} />
                      </li>
                    ))}
                  </ol>
                </td>
                {canWrite && (
                  <td className="actions">
                    <button type="button" onClick={() => setEditing(r.id)}>
                      Edit rotation {r.name}
                    </button>
                    <button
                      type="button"
                      className="danger"
                      disabled={removeRotation.isPending}
                      onClick={() => removeRotation.mutate(r.id)}
                    >
                      Delete rotation {r.name}
                    </button>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {canWrite && edited && (
        <RotationForm
          key={edited.id}
          fullPath={fullPath}
          iid={schedule.iid}
          scheduleName={schedule.name}
          rotation={edited}
          onDone={() => setEditing(undefined)}
        />
      )}
      <h3>Next 14 days</h3>
      <QueryState query={shifts} loading="Loading shifts">
        {(list) => (
          <Timeline
            scheduleName={schedule.name}
            rotations={schedule.rotations}
            shifts={list}
            from={from}
            to={to}
            now={now}
            zone={zone}
          />
        )}
      </QueryState>
      <h3>Overrides</h3>
      <QueryState query={overrides} loading="Loading overrides" isEmpty={(list) => list.length === 0} empty="No overrides.">
        {(list) => (
          <ul className="stack">
            {list.map((o) => (
              <li key={o.id}>
                <UserName user={o.user} />: {formatIn(Date.parse(o.starts_at), zone)} – {formatIn(Date.parse(o.ends_at), zone)}{" "}
                {canWrite && (
                  <button type="button" className="danger" disabled={remove.isPending} onClick={() => remove.mutate(o.id)}>
                    Remove override of @{o.user.username}
                  </button>
                )}
              </li>
            ))}
          </ul>
        )}
      </QueryState>
      {remove.isError && <ErrorMessage error={remove.error} />}
      {removeRotation.isError && <ErrorMessage error={removeRotation.error} />}
      {canWrite && (
        <div className="oncall-forms">
          <RotationForm fullPath={fullPath} iid={schedule.iid} scheduleName={schedule.name} />
          <OverrideForm fullPath={fullPath} iid={schedule.iid} scheduleName={schedule.name} />
        </div>
      )}
    </section>
  );
}
