import { describe, expect, it } from "vitest";
import { KeyedLock } from "./keyed-lock.js";

const tick = () => new Promise((r) => setTimeout(r, 1));

describe("KeyedLock", () => {
  it("runs tasks of one key in order, one at a time, even when some fail", async () => {
    const lock = new KeyedLock();
    const log: string[] = [];
    let running = 0;
    const task =
      (name: string, fail = false) =>
      async () => {
        running += 1;
        expect(running).toBe(1);
        log.push(`start ${name}`);
        await tick();
        log.push(`end ${name}`);
        running -= 1;
        if (fail) throw new Error(name);
        return name;
      };
    const results = await Promise.allSettled([
      lock.run("k", task("a")),
      lock.run("k", task("b", true)),
      lock.run("k", task("c")),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(log).toEqual(["start a", "end a", "start b", "end b", "start c", "end c"]);
    await tick();
    expect(lock.size).toBe(0);
  });

  it("runs different keys in parallel", async () => {
    const lock = new KeyedLock();
    let running = 0;
    let peak = 0;
    const task = async () => {
      running += 1;
      peak = Math.max(peak, running);
      await tick();
      running -= 1;
    };
    await Promise.all([lock.run("a", task), lock.run("b", task)]);
    expect(peak).toBe(2);
  });
});
