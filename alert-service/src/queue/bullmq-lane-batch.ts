import type { Queue } from "bullmq";
import type { Redis } from "ioredis";
import type { BatchWorker } from "./queue.js";

/**
 * Batches over BullMQ, whose (OSS) Worker hands out one job at a time. The job it hands out is
 * the batch's head; the jobs behind it join the batch in one round trip and end in one round
 * trip (`record` in bullmq-packs.ts), before the head ends through BullMQ.
 *
 * - Ordered lane (global concurrency 1): while a worker holds the lane's head job (active,
 *   locked), no worker of any replica takes another job of that lane, so the holder reads the
 *   next waiting jobs (`peek`) and leaves them in the wait list until `record` removes them;
 *   the head's end (which fetches the lane's next job) comes after. A crash mid-batch leaves
 *   them waiting: they run again (jobs are idempotent).
 * - Unordered queue (the timers): other workers may take waiting jobs meanwhile, so the batch
 *   takes them (`take`): moved to the active list with a lock of their own, as BullMQ's
 *   moveToActive does, so that a crash leaves them to BullMQ's stalled-job check, which puts
 *   them back in the wait list once the lock expires. After a failure the jobs the batch did not
 *   end are put back (`release`; the failed one counts an attempt): no retry waits here.
 */

/**
 * KEYS[1] wait list; ARGV[1] the jobs' key prefix, ARGV[2] room: how many jobs (units) at most.
 * The oldest carriers first, whole ones only: a carrier's size is read from its id (a pack's
 * names it, bullmq-packs.ts; a job alone is 1), and the first that would not fit ends the peek.
 * A carrier run in part would stay waiting, to be read, parsed and looked up again as the next
 * head. Answers id, name, data per carrier.
 */
const PEEK = `
local room = tonumber(ARGV[2])
local ids = redis.call("LRANGE", KEYS[1], -room, -1)
local out = {}
for i = #ids, 1, -1 do
  local size = tonumber(string.match(ids[i], "^tocsin%-pack%-(%d+)%-")) or 1
  if size > room then break end
  local h = redis.call("HMGET", ARGV[1] .. ids[i], "name", "data")
  if h[1] then
    room = room - size
    out[#out + 1] = ids[i]
    out[#out + 1] = h[1]
    out[#out + 1] = h[2] or "null"
  end
end
return out`;

/**
 * KEYS[1] wait, KEYS[2] active; ARGV[1] the jobs' key prefix, ARGV[2] how many, ARGV[3] the lock
 * token, ARGV[4] the lock's ms, ARGV[5] the time. The oldest first: id, name, data, attempts made.
 */
const TAKE = `
local out = {}
for n = 1, tonumber(ARGV[2]) do
  local id = redis.call("RPOPLPUSH", KEYS[1], KEYS[2])
  if not id then break end
  local key = ARGV[1] .. id
  redis.call("SET", key .. ":lock", ARGV[3], "PX", ARGV[4])
  redis.call("HSET", key, "processedOn", ARGV[5])
  local h = redis.call("HMGET", key, "name", "data", "atm")
  out[#out + 1] = id
  out[#out + 1] = h[1] or ""
  out[#out + 1] = h[2] or "null"
  out[#out + 1] = h[3] or "0"
end
return out`;

/**
 * KEYS[1] active, KEYS[2] wait, KEYS[3] stalled, KEYS[4] marker; ARGV[1] the jobs' key prefix,
 * then pairs: id, "1" to count a failed attempt. Taken jobs put back at the head of the wait
 * list (in the order given: the first is taken next), as BullMQ's stalled check would.
 */
const RELEASE = `
for i = #ARGV - 1, 2, -2 do
  local id = ARGV[i]
  if redis.call("LREM", KEYS[1], -1, id) == 1 then
    redis.call("DEL", ARGV[1] .. id .. ":lock")
    redis.call("SREM", KEYS[3], id)
    if ARGV[i + 1] == "1" then redis.call("HINCRBY", ARGV[1] .. id, "atm", 1) end
    redis.call("RPUSH", KEYS[2], id)
  end
end
redis.call("ZADD", KEYS[4], 0, "0")
return 0`;

interface LaneScripts {
  tocsinPeek(...args: Array<string | number>): Promise<string[]>;
  tocsinTake(...args: Array<string | number>): Promise<string[]>;
  tocsinRelease(...args: Array<string | number>): Promise<number>;
}

export interface WaitingJob {
  id: string;
  name: string;
  data: unknown;
  /** 1 on the first run. */
  attempt: number;
}

export type Ending = { id: string; ok: true; result: unknown } | { id: string; ok: false; reason: string };

/** Registers the scripts on the connection the workers use (EVALSHA after the first call). */
export function laneBatches(connection: Redis, lockMs: number) {
  connection.defineCommand("tocsinPeek", { numberOfKeys: 1, lua: PEEK });
  connection.defineCommand("tocsinTake", { numberOfKeys: 2, lua: TAKE });
  connection.defineCommand("tocsinRelease", { numberOfKeys: 4, lua: RELEASE });
  const scripts = connection as unknown as LaneScripts;
  const key = (queue: Queue, name: string) => queue.keys[name] as string;
  const jobs = (flat: string[], width: number): WaitingJob[] => {
    const out: WaitingJob[] = [];
    for (let i = 0; i + width - 1 < flat.length; i += width)
      out.push({
        id: flat[i] as string,
        name: flat[i + 1] as string,
        data: JSON.parse(flat[i + 2] as string),
        attempt: width > 3 ? Number(flat[i + 3]) + 1 : 1,
      });
    return out;
  };
  return {
    /** The carriers waiting behind an ordered lane's head, oldest first, whole, up to `room` jobs in all; left waiting. */
    async peek(queue: Queue, room: number): Promise<WaitingJob[]> {
      if (room <= 0) return [];
      return jobs(await scripts.tocsinPeek(key(queue, "wait"), queue.toKey(""), room), 3);
    },
    /** Up to `count` waiting jobs of an unordered queue, taken (active, locked with `token`). */
    async take(queue: Queue, count: number, token: string): Promise<WaitingJob[]> {
      if (count <= 0) return [];
      const wait = key(queue, "wait");
      return jobs(await scripts.tocsinTake(wait, key(queue, "active"), queue.toKey(""), count, token, lockMs, Date.now()), 4);
    },
    /** Taken jobs put back, first to run next; `failed` ones count an attempt. */
    async release(queue: Queue, jobs: Array<{ id: string; failed: boolean }>): Promise<void> {
      if (jobs.length === 0) return;
      const keys = [key(queue, "active"), key(queue, "wait"), key(queue, "stalled"), key(queue, "marker")];
      await scripts.tocsinRelease(...keys, queue.toKey(""), ...jobs.flatMap((j) => [j.id, j.failed ? "1" : "0"]));
    },
  };
}

export type LaneBatches = ReturnType<typeof laneBatches>;

/** A failed job's reason, as recorded. */
export const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * Runs a batch: the endings of the jobs that ran (the job `firstId`, the head, apart), the job
 * that failed (or, when the runner ran none, the first) and its error, the jobs not reached.
 */
export async function runJobs(worker: BatchWorker, run: WaitingJob[], firstId: string | undefined) {
  const outcomes = await worker.batch(run).catch((error: unknown) => [{ ok: false as const, error }]);
  const endings: Ending[] = [];
  let ranFirst: { result: unknown } | undefined;
  let i = 0;
  for (; i < run.length && outcomes[i]?.ok; i++) {
    const { id } = run[i] as WaitingJob;
    const result = (outcomes[i] as { result: unknown }).result;
    if (id === firstId) ranFirst = { result };
    else endings.push({ id, ok: true, result });
  }
  const failed = i < run.length && (i < outcomes.length || outcomes.length === 0);
  const outcome = outcomes[i];
  return {
    endings,
    ranFirst,
    culprit: failed ? run[i] : undefined,
    error: outcome && !outcome.ok ? outcome.error : new Error("the batch runner ran no job"),
    rest: run.slice(failed ? i + 1 : i),
  };
}
