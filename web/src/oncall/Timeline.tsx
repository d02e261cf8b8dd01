import type { Rotation, Shift } from "./api";
import { dayLabelIn, formatIn, midnightIn } from "./zone";

interface Props {
  scheduleName: string;
  rotations: Rotation[];
  shifts: Shift[];
  from: number;
  to: number;
  now: number;
  zone: string;
}

const DAY_MS = 86_400_000;

/** One lane per rotation (and one for overrides): each shift a block placed on the time axis. */
export function Timeline({ scheduleName, rotations, shifts, from, to, now, zone }: Props) {
  const span = to - from;
  const pct = (ms: number) => `${((Math.min(Math.max(ms, from), to) - from) / span) * 100}%`;
  const lanes = [
    ...rotations.map((r) => ({ key: `r${r.id}`, name: r.name, shifts: shifts.filter((s) => s.rotation_id === r.id) })),
    { key: "overrides", name: "Overrides", shifts: shifts.filter((s) => s.override_id !== null) },
  ].filter((lane) => lane.key !== "overrides" || lane.shifts.length > 0);
  const days: number[] = [];
  for (let t = from; t < to; t = midnightIn(t + DAY_MS + DAY_MS / 2, zone)) days.push(t);
  return (
    <div className="timeline">
      <p className="muted">
        Now: {formatIn(now, zone)} ({zone})
      </p>
      <div className="timeline-days" aria-hidden="true">
        {days.map((d) => (
          <span key={d} style={{ left: pct(d) }}>
            {dayLabelIn(d, zone)}
          </span>
        ))}
      </div>
      {lanes.map((lane) => (
        <div className="timeline-lane" key={lane.key}>
          <span className="timeline-lane-name">{lane.name}</span>
          <ul className="timeline-track" aria-label={`Shifts of ${lane.name} in ${scheduleName}`}>
            {lane.shifts.length === 0 && <li className="muted">No shifts in these 14 days</li>}
            {lane.shifts.map((s) => {
              const start = Date.parse(s.starts_at);
              const end = Date.parse(s.ends_at);
              const who = `${s.user.name} (@${s.user.username})${s.user.state === "active" ? "" : `, ${s.user.state}`}`;
              const when = `${formatIn(start, zone)} – ${formatIn(end, zone)}`;
              return (
                <li
                  key={`${s.starts_at}-${s.user.id}-${s.rotation_id ?? s.override_id}`}
                  className={`timeline-shift${s.override_id ? " override" : ""}${s.user.state === "active" ? "" : " skipped"}`}
                  style={{ left: pct(start), width: `calc(${pct(end)} - ${pct(start)})` }}
                  title={`${who}: ${when}`}
                >
                  <span className="timeline-shift-who">@{s.user.username}</span>
                  <span className="visually-hidden">
                    {" "}
                    {who}, {when}
                  </span>
                </li>
              );
            })}
          </ul>
        </div>
      ))}
      <div className="timeline-now" style={{ left: pct(now) }} aria-hidden="true" />
    </div>
  );
}
