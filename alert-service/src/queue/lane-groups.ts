import type { QueuedJob } from "./queue.js";

/**
 * `jobs` grouped by lane, for a write that stores each lane's jobs together: the lanes in the
 * order of their first job, each lane's jobs in array order. `firstOfEachId`: an id twice (two
 * adds of one job in one write) keeps its first job only.
 */
export function laneGroups(jobs: QueuedJob[], { firstOfEachId = false } = {}): Map<number, QueuedJob[]> {
  const lanes = new Map<number, QueuedJob[]>();
  const seen = firstOfEachId ? new Set<string>() : undefined;
  for (const job of jobs) {
    if (seen?.has(job.id)) continue;
    seen?.add(job.id);
    const lane = lanes.get(job.lane);
    if (lane) lane.push(job);
    else lanes.set(job.lane, [job]);
  }
  return lanes;
}
