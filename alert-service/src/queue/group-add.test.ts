import { describe, expect, it } from "vitest";
import { GroupAdd } from "./group-add.js";
import type { QueuedJob } from "./queue.js";

const job = (id: string): QueuedJob => ({ id, name: "n", lane: 0, data: {} });

/** A write that stays open until `finish` is called: what arrives meanwhile waits for the next. */
function writes() {
  const calls: Array<{ ids: string[]; finish: (err?: Error) => void }> = [];
  const write = (jobs: QueuedJob[]) =>
    new Promise<void>((resolve, reject) => {
      calls.push({ ids: jobs.map((j) => j.id), finish: (err) => (err ? reject(err) : resolve()) });
    });
  return { calls, write };
}

const tick = () => new Promise((r) => setImmediate(r));

describe("GroupAdd", () => {
  it("writes a lone add at the end of its turn, and the adds that arrive during a write together with the next, in order", async () => {
    const { calls, write } = writes();
    const group = new GroupAdd(write);
    const first = group.add([job("a")]);
    await tick();
    expect(calls.map((c) => c.ids)).toEqual([["a"]]);
    const later = [group.add([job("b"), job("c")]), group.add([job("d")]), group.add([])];
    await tick();
    expect(calls).toHaveLength(1); // waits for the write on its way
    calls[0]?.finish();
    await first;
    await tick();
    expect(calls.map((c) => c.ids)).toEqual([["a"], ["b", "c", "d"]]);
    calls[1]?.finish();
    await Promise.all(later);
  });

  it("fails the adds of a failed write, and only those", async () => {
    const { calls, write } = writes();
    const group = new GroupAdd(write);
    const first = group.add([job("a")]);
    await tick();
    const second = group.add([job("b")]);
    calls[0]?.finish(new Error("redis away"));
    await expect(first).rejects.toThrow("redis away");
    await tick();
    calls[1]?.finish();
    await expect(second).resolves.toBeUndefined();
  });
});
