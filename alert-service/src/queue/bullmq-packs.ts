import { type Logger, sha1Hex } from "@tocsin/core";
import type { Queue } from "bullmq";
import type { Redis } from "ioredis";
import type { Ending } from "./bullmq-lane-batch.js";
import type { JobResult, QueuedJob, RunningJob } from "./queue.js";

/**
 * Packs: on an ordered lane, the jobs one `addBulk` stores in a lane travel as one BullMQ job
 * (a carrier), so that a 100-alert post costs a few Redis job writes instead of a hundred. A job
 * added alone, or with a delay, is its own carrier, as before packs (and as jobs stored by an
 * older version are). The worker unpacks carriers into their jobs (units); a unit's end is
 * recorded in the lane's done hash (its result, kept like BullMQ's completed jobs: an hour, at
 * most `DONE_KEEP_COUNT`), which answers `waitFor` and makes a re-added id a no-op: a unit whose
 * id is in the done hash is not run again. A carrier ends once every unit of it has ended; a
 * pack is then deleted (its jobs' ends are in the done hash), a job alone kept as BullMQ keeps it.
 * Every job of an ordered lane that ends in a batch is recorded, a job alone too: a later pack
 * holding its id again finds it there.
 */

export const PACK_NAME = "tocsin-pack";
/**
 * The name of every worker of a version that unpacks (BullMQ puts it in the worker's Redis client
 * name). A worker of an older version has none, and would fail a pack it took as an unknown job:
 * while one is connected to a lane (a rolling upgrade), producers write jobs alone (`packingAllowed`).
 */
export const PACK_WORKER_NAME = "tocsin-packs";
/** How long a producer trusts its last look at the lane's workers. */
const PACK_CHECK_MS = 5_000;
/** Units per carrier at most: bounds one job hash and what a batch reads to use part of it. */
const PACK_MAX = 256;
const DONE_KEEP_MS = 3_600_000;
const DONE_KEEP_COUNT = 100_000;

/** BullMQ refuses `:` in custom ids. */
export const bullId = (id: string) => id.replaceAll(":", "_");

export const PACK_ID_PREFIX = "tocsin-pack-";
/** A pack's id names its size (read by `pending`) and is the same for the same jobs (an identical re-add is one job). */
const packId = (ids: string[]) => `${PACK_ID_PREFIX}${ids.length}-${sha1Hex(ids.join("\n")).slice(0, 24)}`;

interface PackedJob {
  id: string;
  name: string;
  data: unknown;
}

export interface Carrier {
  /** The BullMQ job id. */
  id: string;
  name: string;
  data: unknown;
  /** BullMQ's delay, for a job added alone. */
  delayMs?: number;
}

/** A lane's jobs, in order, as the carriers that store them: the undelayed ones packed, a delayed one alone. */
export function carriersOf(jobs: QueuedJob[]): Carrier[] {
  const seen = new Set<string>();
  // An id twice in one write (two adds of one job): the first.
  const undelayed = jobs.filter((job) => !job.delayMs && !seen.has(job.id) && seen.add(job.id));
  const out: Carrier[] = jobs
    .filter((job) => job.delayMs)
    .map((job) => ({ id: bullId(job.id), name: job.name, data: job.data, delayMs: job.delayMs }));
  for (let i = 0; i < undelayed.length; i += PACK_MAX) {
    const slice = undelayed.slice(i, i + PACK_MAX);
    if (slice.length === 1) {
      const [job] = slice as [QueuedJob];
      out.push({ id: bullId(job.id), name: job.name, data: job.data });
      continue;
    }
    const packed: PackedJob[] = slice.map((job) => ({ id: bullId(job.id), name: job.name, data: job.data }));
    out.push({ id: packId(packed.map((p) => p.id)), name: PACK_NAME, data: { jobs: packed } });
  }
  return out;
}

/** The jobs a carrier holds, in order; `attempt` is the carrier's for a job that travels alone. */
export function unitsOf(carrier: { id: string; name: string; data: unknown; attempt: number }): RunningJob[] {
  if (carrier.name !== PACK_NAME) return [carrier];
  const { jobs } = carrier.data as { jobs: PackedJob[] };
  return jobs.map((job) => ({ id: job.id, name: job.name, data: job.data, attempt: 1 }));
}

/**
 * KEYS[1] the list the carriers are in (wait: peeked behind an ordered lane's head; active: taken
 * by an unordered queue's batch), KEYS[2] completed, KEYS[3] failed, KEYS[4] stalled, KEYS[5] done
 * hash, KEYS[6] done log, KEYS[7] done times (a version before the log); ARGV[1] the jobs' key prefix, ARGV[2] the time, ARGV[3] keep ms,
 * ARGV[4] keep count, ARGV[5] how many carriers; then the carriers as triples: id, "c"
 * (completed, value = returnvalue JSON), "f" (failed, value = reason) or "d" (a pack: deleted),
 * value, ended as BullMQ's own end would (in the completed/failed sets; one no longer in the list,
 * put back by the stalled-job check or taken by another worker after a lost lock, is left alone); then pairs:
 * job id (packed or alone), its JobResult JSON. The done log gets one entry per call, `[time, [ids]]`
 * (not a sorted-set member per id: that ZADD was half the script's time). Trims the done hash by
 * age and count, whole log entries, oldest first, at most 8 per call (one is added per call); and
 * the done times an older version kept, by age, 500 ids per call, until they are gone. The head's
 * end in BullMQ trims the completed set. Answers the carriers ended.
 */
const RECORD = `
local now = tonumber(ARGV[2])
local last = 5 + 3 * tonumber(ARGV[5])
local done = {}
for i = 6, last, 3 do
  local id = ARGV[i]
  if redis.call("LREM", KEYS[1], -1, id) == 1 then
    local key = ARGV[1] .. id
    redis.call("DEL", key .. ":lock")
    redis.call("SREM", KEYS[4], id)
    if ARGV[i + 1] == "d" then
      redis.call("DEL", key, key .. ":logs")
    elseif ARGV[i + 1] == "c" then
      redis.call("ZADD", KEYS[2], now, id)
      redis.call("HSET", key, "returnvalue", ARGV[i + 2], "finishedOn", now, "processedOn", now, "atm", 1)
    else
      redis.call("ZADD", KEYS[3], now, id)
      redis.call("HSET", key, "failedReason", ARGV[i + 2], "finishedOn", now, "processedOn", now, "atm", 1)
    end
    done[#done + 1] = id
  end
end
local h, ids = {}, {}
for i = last + 1, #ARGV - 1, 2 do
  h[#h + 1] = ARGV[i]
  h[#h + 1] = ARGV[i + 1]
  ids[#ids + 1] = ARGV[i]
  if #h >= 1000 then
    redis.call("HSET", KEYS[5], unpack(h))
    h = {}
  end
end
if #h > 0 then redis.call("HSET", KEYS[5], unpack(h)) end
if #ids > 0 then redis.call("RPUSH", KEYS[6], cjson.encode({ now, ids })) end
local cutoff = now - tonumber(ARGV[3])
local over = redis.call("HLEN", KEYS[5]) - tonumber(ARGV[4])
for _ = 1, 8 do
  local entry = redis.call("LINDEX", KEYS[6], 0)
  if not entry then break end
  local e = cjson.decode(entry)
  if e[1] > cutoff and over <= 0 then break end
  local old = e[2]
  for i = 1, #old, 1000 do redis.call("HDEL", KEYS[5], unpack(old, i, math.min(i + 999, #old))) end
  over = over - #old
  redis.call("LPOP", KEYS[6])
end
local before = redis.call("ZRANGEBYSCORE", KEYS[7], "-inf", cutoff, "LIMIT", 0, 500)
if #before > 0 then
  redis.call("HDEL", KEYS[5], unpack(before))
  redis.call("ZREM", KEYS[7], unpack(before))
end
return done`;

/** KEYS[1] wait, KEYS[2] active: the units they hold (a pack counts its size, read from its id). */
const PENDING = `
local n = 0
for k = 1, 2 do
  for _, id in ipairs(redis.call("LRANGE", KEYS[k], 0, -1)) do
    n = n + (tonumber(string.match(id, "^tocsin%-pack%-(%d+)%-")) or 1)
  end
end
return n`;

interface PackScripts {
  tocsinRecord(...args: Array<string | number>): Promise<string[]>;
  tocsinPending(...args: string[]): Promise<number>;
}

const resultOf = (e: Ending): JobResult =>
  e.ok ? { state: "completed", result: e.result ?? null } : { state: "failed", error: e.reason };

const doneKey = (queue: Queue) => queue.toKey("tocsin-done");

/** Registers the scripts on `connection` (EVALSHA after the first call). */
export function lanePacks(connection: Redis) {
  connection.defineCommand("tocsinRecord", { numberOfKeys: 7, lua: RECORD });
  const scripts = connection as unknown as PackScripts;
  return {
    /** The ids among `ids` whose end is recorded (one HMGET: most ids are new). */
    async known(queue: Queue, ids: string[]): Promise<Set<string>> {
      if (ids.length === 0) return new Set();
      const ends = await connection.hmget(doneKey(queue), ...ids);
      return new Set(ids.filter((_, i) => ends[i] !== null));
    },
    /** Records jobs' ends and ends the carriers (peeked from wait, or taken into active) all of whose jobs ended, in one round trip; answers the carriers ended. */
    async record(queue: Queue, from: "wait" | "active", units: Ending[], carriers: Ending[]): Promise<Set<string>> {
      if (units.length === 0 && carriers.length === 0) return new Set();
      const keys = [
        queue.keys[from] as string,
        queue.keys.completed as string,
        queue.keys.failed as string,
        queue.keys.stalled as string,
        doneKey(queue),
        queue.toKey("tocsin-done-log"),
        queue.toKey("tocsin-done-at"),
      ];
      const pairs = units.flatMap((e) => [e.id, JSON.stringify(resultOf(e))]);
      const triples = carriers.flatMap((e) =>
        e.id.startsWith(PACK_ID_PREFIX)
          ? [e.id, "d", ""]
          : e.ok
            ? [e.id, "c", JSON.stringify(e.result ?? null)]
            : [e.id, "f", e.reason],
      );
      const ended = await scripts.tocsinRecord(
        ...keys,
        queue.toKey(""),
        Date.now(),
        DONE_KEEP_MS,
        DONE_KEEP_COUNT,
        carriers.length,
        ...triples,
        ...pairs,
      );
      return new Set(ended);
    },
  };
}

/** The jobs an ordered lane holds, waiting or running (a pack counts its size), read on `connection`. */
export function laneUnits(connection: Redis) {
  connection.defineCommand("tocsinPending", { numberOfKeys: 2, lua: PENDING });
  const scripts = connection as unknown as PackScripts;
  return async (queue: Queue): Promise<number> => {
    await queue.waitUntilReady();
    return scripts.tocsinPending(queue.keys.wait as string, queue.keys.active as string);
  };
}

/** A unit's recorded end, read on the queue's connection (once it is ready). */
export async function recordedEnd(queue: Queue, id: string): Promise<JobResult | undefined> {
  const text = await (await queue.client).hget(doneKey(queue), id);
  return text === null ? undefined : (JSON.parse(text) as JobResult);
}

export type LanePacks = ReturnType<typeof lanePacks>;

/**
 * Whether every worker connected to `queue` unpacks (none connected counts as yes: this version's
 * own workers may not have started yet). A Redis that refuses CLIENT LIST (some managed ones)
 * answers no: jobs are written alone there, as before packs.
 */
async function packingAllowed(queue: Queue): Promise<boolean> {
  const workers = (await queue.getWorkers()) as Array<{ rawname?: string }>;
  return workers.every((w) => typeof w.rawname === "string" && w.rawname.endsWith(`:w:${PACK_WORKER_NAME}`));
}

/**
 * Whether a producer writes packs (see PACK_WORKER_NAME): its last look at the lanes' workers
 * (`packingAllowed`), taken again every PACK_CHECK_MS. The first write waits for the first look;
 * later ones use the last, refreshed in the background. A look that fails keeps the last answer.
 */
export class PackingCheck {
  private last: { allowed: boolean; at: number; looking?: Promise<void> } | undefined;

  constructor(
    private readonly queue: Queue,
    private readonly logger: Logger,
  ) {}

  async allowed(): Promise<boolean> {
    const now = Date.now();
    if (!this.last) {
      this.last = { allowed: false, at: now };
      await this.look(this.last);
    } else if (now - this.last.at > PACK_CHECK_MS && !this.last.looking) {
      this.last.at = now;
      void this.look(this.last);
    }
    return this.last.allowed;
  }

  private look(last: { allowed: boolean; looking?: Promise<void> }): Promise<void> {
    last.looking = packingAllowed(this.queue)
      .then(
        (allowed) => {
          last.allowed = allowed;
        },
        (err: unknown) => this.logger.debug({ err }, "cannot list the lanes' workers; keeping the last answer"),
      )
      .finally(() => {
        last.looking = undefined;
      });
    return last.looking;
  }
}
