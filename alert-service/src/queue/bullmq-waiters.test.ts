import { describe, expect, it } from "vitest";
import { EndWaiters } from "./bullmq-waiters.js";
import type { JobResult } from "./queue.js";

const DONE: JobResult = { state: "completed", result: { iid: 1 } };

/** A store whose end appears when `store` is called; `reads` counts the looks. */
function fakeStore() {
  let end: JobResult | undefined;
  const counter = { reads: 0 };
  return {
    counter,
    store: () => {
      end = DONE;
    },
    read: async () => {
      counter.reads++;
      return end;
    },
  };
}

/** Resolves once `check` holds, looking after every turn of the event loop (bounded). */
async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !check(); i++) await new Promise((r) => setImmediate(r));
  expect(check()).toBe(true);
}

describe("EndWaiters", () => {
  it("answers at once what is stored, without listening for it", async () => {
    const s = fakeStore();
    s.store();
    const waiters = new EndWaiters(async () => undefined);
    await expect(waiters.waitFor("a", 5_000, s.read)).resolves.toEqual(DONE);
    expect(s.counter.reads).toBe(1);
  });

  it.each([
    ["this version's id list", JSON.stringify(["x", "a"])],
    ["an older version's { id, result } list", JSON.stringify([{ id: "a", result: DONE }])],
    ["an older version's single { id, result }", JSON.stringify({ id: "a", result: DONE })],
  ])("reads again when its id is announced as %s", async (_form, message) => {
    const s = fakeStore();
    const waiters = new EndWaiters(async () => undefined);
    const answer = waiters.waitFor("a", 60_000, s.read);
    await until(() => s.counter.reads === 1);
    s.store();
    waiters.hear(message);
    await expect(answer).resolves.toEqual(DONE);
    expect(s.counter.reads).toBe(2);
  });

  it("ignores other ids and messages that are not JSON, and answers undefined at its timeout without another read", async () => {
    const s = fakeStore();
    const waiters = new EndWaiters(async () => undefined);
    const answer = waiters.waitFor("a", 50, s.read);
    await until(() => s.counter.reads === 1);
    s.store();
    waiters.hear(JSON.stringify(["b"]));
    waiters.hear("not json");
    waiters.hear("null");
    await expect(answer).resolves.toBeUndefined();
    expect(s.counter.reads).toBe(1);
  });

  it("answers undefined as soon as its signal aborts, and hears its id no more", async () => {
    const s = fakeStore();
    const waiters = new EndWaiters(async () => undefined);
    const drop = new AbortController();
    const answer = waiters.waitFor("a", 60_000, s.read, drop.signal);
    await until(() => s.counter.reads === 1);
    drop.abort();
    await expect(answer).resolves.toBeUndefined();
    waiters.hear(JSON.stringify(["a"]));
    await new Promise((r) => setImmediate(r));
    expect(s.counter.reads).toBe(1);
    // Aborted before it began: one read, no wait.
    await expect(waiters.waitFor("a", 60_000, s.read, drop.signal)).resolves.toBeUndefined();
    expect(s.counter.reads).toBe(2);
  });

  it("answers at its timeout when subscribing takes longer than the timeout", async () => {
    const s = fakeStore();
    const waiters = new EndWaiters(() => new Promise((r) => setTimeout(r, 200)));
    await expect(waiters.waitFor("a", 20, s.read)).resolves.toBeUndefined();
    expect(s.counter.reads).toBe(1);
  });

  it("reads only after listening, and a timeout of 0 reads once", async () => {
    const s = fakeStore();
    let subscribed = false;
    let reads = 0;
    const waiters = new EndWaiters(async () => {
      await new Promise((r) => setTimeout(r, 20));
      subscribed = true;
    });
    const read = async () => {
      reads++;
      expect(subscribed).toBe(true);
      return DONE;
    };
    await expect(waiters.waitFor("a", 5_000, read)).resolves.toEqual(DONE);
    expect(reads).toBe(1);
    await expect(waiters.waitFor("b", 0, s.read)).resolves.toBeUndefined();
    expect(s.counter.reads).toBe(1);
  });
});
