import { useMemo, useState } from "react";
import { ACCESS } from "../api/types";
import { useCurrentProject } from "../projects/context";
import { PENDING, QueryState } from "../ui/QueryState";
import { useDocumentTitle } from "../ui/title";
import { useOverrides, useSchedules, useShifts } from "./api";
import { ScheduleForm } from "./OncallForms";
import { ScheduleSection } from "./ScheduleSection";
import { midnightIn, viewerZone } from "./zone";

const DAYS = 14;

/** `/<full_path>/-/oncall_schedules` (PRODUCT.md section 11): schedules, rotations, overrides, 14 days of shifts. */
export default function OncallSchedulesPage() {
  const { project, fullPath, access } = useCurrentProject();
  useDocumentTitle(`On-call schedules · ${project.name}`);
  const schedules = useSchedules(fullPath);
  const [inViewerZone, setInViewerZone] = useState(false);
  const now = useMemo(() => Date.now(), []);
  const mine = viewerZone();
  const canWrite = access >= ACCESS.maintainer;
  // Each schedule's 14 days from midnight in the zone shown, its shifts and its overrides.
  const windows = (schedules.data ?? []).map((s) => {
    const zone = inViewerZone ? mine : s.timezone;
    const from = midnightIn(now, zone);
    return { schedule: s, zone, from, to: from + DAYS * 86_400_000 };
  });
  const shifts = useShifts(
    fullPath,
    windows.map((w) => ({ iid: w.schedule.iid, from: new Date(w.from).toISOString(), to: new Date(w.to).toISOString() })),
  );
  const overrides = useOverrides(
    fullPath,
    windows.map((w) => w.schedule.iid),
  );
  return (
    <>
      <h1>On-call schedules</h1>
      <fieldset className="field inline">
        <legend>Show times in</legend>
        <label>
          <input type="radio" name="zone" checked={!inViewerZone} onChange={() => setInViewerZone(false)} /> each schedule's time
          zone
        </label>
        <label>
          <input type="radio" name="zone" checked={inViewerZone} onChange={() => setInViewerZone(true)} /> your time zone ({mine})
        </label>
      </fieldset>
      <QueryState query={schedules} loading="Loading schedules">
        {(list) => (
          <>
            {list.length === 0 && <p className="empty">No on-call schedules yet.</p>}
            {windows.map(({ schedule, zone, from, to }, i) => (
              <ScheduleSection
                key={`${schedule.iid}-${zone}`}
                fullPath={fullPath}
                schedule={schedule}
                zone={zone}
                canWrite={canWrite}
                from={from}
                to={to}
                now={now}
                shifts={shifts[i] ?? PENDING}
                overrides={overrides[i] ?? PENDING}
              />
            ))}
          </>
        )}
      </QueryState>
      {canWrite && <ScheduleForm fullPath={fullPath} />}
    </>
  );
}
