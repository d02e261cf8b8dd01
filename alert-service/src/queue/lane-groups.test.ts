import { describe, expect, it } from "vitest";
import { laneGroups } from "./lane-groups.js";
import type { QueuedJob } from "./queue.js";

const job = (id: string, lane: number): QueuedJob => ({ id, name: "n", lane, data: { id } });

/** The groups as [lane, ids] pairs, in the map's order. */
const ids = (groups: Map<number, QueuedJob[]>) => [...groups].map(([lane, jobs]) => [lane, jobs.map((j) => j.id)]);

describe("laneGroups", () => {
  const jobs = [job("a", 3), job("b", 1), job("c", 3), job("a", 1), job("d", 0), job("b", 1), job("e", 1)];

  it("orders the lanes by their first job and keeps each lane's jobs in array order, repeated ids too", () => {
    expect(ids(laneGroups(jobs))).toEqual([
      [3, ["a", "c"]],
      [1, ["b", "a", "b", "e"]],
      [0, ["d"]],
    ]);
  });

  it("with firstOfEachId keeps an id's first job only, the order otherwise the same", () => {
    const groups = laneGroups(jobs, { firstOfEachId: true });
    expect(ids(groups)).toEqual([
      [3, ["a", "c"]],
      [1, ["b", "e"]],
      [0, ["d"]],
    ]);
    // The jobs themselves, not copies.
    expect(groups.get(3)?.[0]).toBe(jobs[0]);
  });

  it("a lane whose only jobs repeat earlier ids is left out", () => {
    expect(ids(laneGroups([job("a", 0), job("a", 2)], { firstOfEachId: true }))).toEqual([[0, ["a"]]]);
    expect(ids(laneGroups([]))).toEqual([]);
  });
});
