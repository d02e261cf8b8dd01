import { describe, expect, it } from "vitest";
import type { Unit } from "./packs.js";
import { PendingEnds } from "./pending-ends.js";
import type { JobRow } from "./schema.js";

const row = (seq: number, units: number, done = 0, attempts = 0): JobRow => ({
  seq,
  id: `r${seq}`,
  name: units > 1 ? "tocsin-pack" : "n",
  data: "[]",
  attempts,
  run_after: 0,
  units,
  done,
  result: null,
});
const ended = (r: JobRow, idx: number): { unit: Unit; result: { state: "completed"; result: null } } => ({
  unit: { row: r, idx, job: { id: `${r.id}-${idx}`, name: "n", data: null, attempt: 1 } },
  result: { state: "completed", result: null },
});

describe("pending ends", () => {
  it("sees a pack past its ended jobs (attempts afresh), an ended row alone or a pack ended whole as gone, any other row as stored", () => {
    const pack = row(1, 5, 1, 2);
    const alone = row(2, 1);
    const whole = row(3, 2);
    const untouched = row(4, 3);
    const pending = new PendingEnds();
    pending.add([ended(pack, 1), ended(pack, 2), ended(alone, -1)]);
    pending.add([ended(whole, 0), ended(whole, 1)]);
    expect(pending.adjust(pack)).toEqual({ ...pack, done: 3, attempts: 0 });
    expect(pending.adjust(alone)).toBeUndefined();
    expect(pending.adjust(whole)).toBeUndefined();
    expect(pending.adjust(untouched)).toBe(untouched);
    expect(pending.batches()).toBe(2);
    expect(pending.list().map((e) => e.unit.job.id)).toEqual(["r1-1", "r1-2", "r2--1", "r3-0", "r3-1"]);
  });

  it("holds nothing once cleared, and counts no batch that ended no job", () => {
    const pending = new PendingEnds();
    pending.add([]);
    expect(pending.batches()).toBe(0);
    const pack = row(1, 4);
    pending.add([ended(pack, 0)]);
    pending.clear();
    expect(pending.size()).toBe(0);
    expect(pending.batches()).toBe(0);
    expect(pending.adjust(pack)).toBe(pack);
  });
});
