import { afterEach, describe, expect, it, vi } from "vitest";
import { type BacklogGate, type BacklogGateOptions, createBacklogGate } from "./backlog-gate.js";

/**
 * A request's admission, observable: `done` turns true once the gate lets it in, and its alerts
 * are then queued (`queue.pending`), as ingest does.
 */
function admission(gate: BacklogGate, alerts: number, queue?: { pending: number }) {
  const state = { done: false };
  const promise = gate.admit(alerts).then(() => {
    state.done = true;
    if (queue) queue.pending += alerts;
  });
  return Object.assign(state, { promise });
}

describe("backlog gate", () => {
  const gates: BacklogGate[] = [];
  afterEach(() => {
    for (const g of gates.splice(0)) g.close();
  });

  function setup(over: Partial<BacklogGateOptions> = {}) {
    const { gate, queue } = build(over);
    /** The queue holds `n` alerts, and the gate has read it (an admit starts its first read). */
    const atBacklog = async (n: number) => {
      queue.pending = n;
      await vi.waitFor(async () => {
        await gate.admit(0);
        expect(queue.reads).toBeGreaterThan(0);
      });
    };
    return { gate, queue, atBacklog };
  }

  function build(over: Partial<BacklogGateOptions>) {
    const queue = { pending: 0, reads: 0, down: false, hang: false };
    const gate = createBacklogGate({
      pending: async () => {
        queue.reads++;
        if (queue.down) throw new Error("queue down");
        if (queue.hang) return new Promise<number>(() => undefined);
        return queue.pending;
      },
      limit: 100,
      maxWaitMs: 60_000,
      sampleMs: 5,
      ...over,
    });
    gates.push(gate);
    return { gate, queue };
  }

  it("lets requests in at once while the backlog is under the limit", async () => {
    const { gate, queue } = setup();
    queue.pending = 40;
    await gate.admit(10);
    await gate.admit(10);
    expect(gate.stats()).toEqual({ held: 0, heldMs: 0, heldOverdue: 0 });
  });

  it("holds requests at the limit and lets them in, in order, as processing drains the backlog", async () => {
    const { gate, queue, atBacklog } = setup();
    await atBacklog(150);
    const first = admission(gate, 30, queue);
    const second = admission(gate, 30, queue);
    const third = admission(gate, 30, queue);
    const order: number[] = [];
    for (const [i, a] of [first, second, third].entries()) void a.promise.then(() => order.push(i));
    // Still over the limit after several reads: nobody is let in.
    const reads = queue.reads;
    await vi.waitFor(() => expect(queue.reads).toBeGreaterThan(reads + 2));
    expect([first.done, second.done, third.done]).toEqual([false, false, false]);
    // 50 left: room for two of them (50 + 30 < 100, then 80 < 100); the third waits for a read
    // under 100 (110 while the two are queued).
    queue.pending = 50;
    await vi.waitFor(() => expect(second.done).toBe(true));
    expect(first.done).toBe(true);
    expect(third.done).toBe(false);
    // Several reads later, still at 110: the third is still held.
    const readsHeld = queue.reads;
    await vi.waitFor(() => expect(queue.reads).toBeGreaterThan(readsHeld + 2));
    expect(third.done).toBe(false);
    queue.pending -= 40;
    await vi.waitFor(() => expect(third.done).toBe(true));
    expect(order).toEqual([0, 1, 2]);
    const stats = gate.stats();
    expect(stats.held).toBe(3);
    expect(stats.heldOverdue).toBe(0);
    expect(stats.heldMs).toBeGreaterThan(0);
  });

  it("counts what it let in since the last read on top of it", async () => {
    const { gate, queue } = setup({ sampleMs: 60_000 });
    await gate.admit(60);
    await vi.waitFor(() => expect(queue.reads).toBe(1));
    await gate.admit(30); // 0 read + 30 admitted since: room
    const third = admission(gate, 30); // 30 + 60 + 30 ≥ 100? 90 < 100: room
    await third.promise;
    const fourth = admission(gate, 1); // 120 ≥ 100: held, no read due for a minute
    await new Promise((r) => setTimeout(r, 20));
    expect(fourth.done).toBe(false);
    gate.close();
    await fourth.promise;
  });

  it("lets a held request in after its longest hold, and counts it overdue", async () => {
    const { gate, atBacklog } = setup({ maxWaitMs: 30 });
    await atBacklog(1000);
    await gate.admit(5);
    expect(gate.stats()).toMatchObject({ held: 1, heldOverdue: 1 });
  });

  it("ends a hold a second before the caller's deadline", async () => {
    const { gate, atBacklog } = setup();
    await atBacklog(1000);
    await gate.admit(5, Date.now() + 1_050);
    expect(gate.stats()).toMatchObject({ held: 1, heldOverdue: 1 });
    // A deadline under a second away: no hold at all.
    await gate.admit(5, Date.now() + 500);
    expect(gate.stats().held).toBe(1);
  });

  it("holds nobody while the queue does not answer", async () => {
    const { gate, queue, atBacklog } = setup();
    await atBacklog(1000);
    queue.down = true;
    const held = admission(gate, 5);
    await held.promise;
    expect(gate.stats().heldOverdue).toBe(0);
  });

  it("holds nobody once a read of the backlog takes over a second", async () => {
    const { gate, queue, atBacklog } = setup();
    await atBacklog(1000);
    queue.hang = true;
    const held = admission(gate, 5);
    await held.promise;
    expect(gate.stats()).toMatchObject({ held: 1, heldOverdue: 0 });
  });

  it("holds nothing with limit 0", async () => {
    const { gate, queue } = setup({ limit: 0 });
    queue.pending = 1_000_000;
    await gate.admit(100);
    await gate.admit(100);
    expect(queue.reads).toBe(0);
    expect(gate.stats().held).toBe(0);
  });
});
