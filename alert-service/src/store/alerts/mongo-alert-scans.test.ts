import { AppError } from "@tocsin/core";
import { until } from "@tocsin/testing";
import { describe, expect, it } from "vitest";
import { AlertScans, type Bound } from "./mongo-alert-scans.js";

/** A read the test finishes when it wants: `release` resolves it. */
function held() {
  let release = () => {};
  const done = new Promise<void>((resolve) => {
    release = resolve;
  });
  return { done, release };
}

const deadlineError = (err: unknown) => AppError.is(err) && err.code === "DEADLINE_EXCEEDED";

describe("AlertScans: the reads that go through a project's alerts", () => {
  it("FerretDB: one turn at a time, the reads of a turn one after the other", async () => {
    const scans = new AlertScans(true);
    const first = held();
    const log: string[] = [];
    const a = scans.run(undefined, async () => {
      log.push("a starts");
      await first.done;
      log.push("a ends");
    });
    const b = scans.run(undefined, () =>
      scans.pair(
        async () => log.push("b1"),
        async () => log.push("b2"),
      ),
    );
    await until(() => log.length === 1);
    expect(log).toEqual(["a starts"]);
    first.release();
    await Promise.all([a, b]);
    expect(log).toEqual(["a starts", "a ends", "b1", "b2"]);
  });

  it("MongoDB: turns side by side", async () => {
    const scans = new AlertScans(false);
    const first = held();
    const a = scans.run(undefined, () => first.done);
    const b = await scans.run(undefined, async () => "b");
    expect(b).toBe("b");
    first.release();
    await a;
  });

  it("a turn that comes after its caller's deadline does not read", async () => {
    const scans = new AlertScans(true);
    const first = held();
    const a = scans.run(undefined, () => first.done);
    const deadline = Date.now() + 20;
    let read = false;
    const late = scans.run(deadline, async (bound) => {
      bound();
      read = true;
    });
    await until(() => Date.now() > deadline);
    first.release();
    await a;
    await expect(late).rejects.toSatisfy(deadlineError);
    expect(read).toBe(false);
  });

  it("each read is bounded by the time left; none without a deadline", async () => {
    const scans = new AlertScans(false);
    const bounds: Bound[] = [];
    await scans.run(Date.now() + 60_000, async (bound) => {
      bounds.push(bound());
    });
    await scans.run(undefined, async (bound) => {
      bounds.push(bound());
    });
    expect(bounds[0]?.maxTimeMS).toBeGreaterThan(50_000);
    expect(bounds[0]?.maxTimeMS).toBeLessThanOrEqual(60_000);
    expect(bounds[1]).toEqual({});
  });

  it("the server's MaxTimeMSExpired becomes DEADLINE_EXCEEDED; other failures pass and free the turn", async () => {
    const scans = new AlertScans(true);
    const expired = Object.assign(new Error("operation exceeded time limit"), { code: 50 });
    await expect(scans.run(Date.now() + 1000, () => Promise.reject(expired))).rejects.toSatisfy(deadlineError);
    const other = new Error("connection closed");
    await expect(scans.run(undefined, () => Promise.reject(other))).rejects.toBe(other);
    await expect(scans.run(undefined, async () => "next")).resolves.toBe("next");
  });
});
