// Two per-call costs of the SQLite layer, each beside what it replaced, in one run (µs per call
// and their ratio). Pure CPU on a temporary file; run after `npm run build`:
//   node bench/sqlite-micro.mjs [--calls 20000]
// 1. `tryWrite`'s pragmas (libs/store/src/write-lock.ts): two prepared PRAGMA statements per
//    write against the three `db.pragma` calls it made before (each prepares its statement).
// 2. An unordered queue's read of a lane's due jobs (`nextDue`, alert-service/src/queue/sqlite/
//    lanes.ts) with 0, 5,000 and 55,000 future timers pending: with the `jobs_pending_due` index
//    that unordered queues now get, and without it (the ordered queues' indexes only).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { nextDue } from "../alert-service/dist/queue/sqlite/lanes.js";
import { openQueueDb } from "../alert-service/dist/queue/sqlite/schema.js";
import { tryWrite } from "../libs/store/dist/write-lock.js";

const { values: opt } = parseArgs({ options: { calls: { type: "string", default: "20000" } } });
const CALLS = Number(opt.calls);
const dir = mkdtempSync(join(tmpdir(), "tocsin-sqlite-micro-"));
const usPer = (n, fn) => {
  const t = performance.now();
  for (let i = 0; i < n; i++) fn();
  return ((performance.now() - t) * 1000) / n;
};
const f = (x) => x.toFixed(1).padStart(8);

try {
  const db = openQueueDb(join(dir, "write.db"), "here", true);
  const before = () => {
    const timeout = db.pragma("busy_timeout", { simple: true });
    db.pragma("busy_timeout = 0");
    db.pragma(`busy_timeout = ${timeout}`);
  };
  const now = () => tryWrite(db, () => undefined);
  usPer(2000, before);
  usPer(2000, now);
  const a = usPer(CALLS, before);
  const b = usPer(CALLS, now);
  console.log(`tryWrite's pragmas, µs per write: before ${f(a)}, now ${f(b)}  (now ÷ before ${(b / a).toFixed(2)})`);
  db.close();

  console.log("\nunordered queue, nextDue of one lane, µs per call (100 calls each):");
  console.log("   pending   no index  with index  ratio");
  const now0 = Date.now();
  const files = { plain: openQueueDb(join(dir, "plain.db"), "here", true), due: openQueueDb(join(dir, "due.db"), "here", false) };
  let pending = 0;
  for (const target of [0, 5_000, 55_000]) {
    for (const q of Object.values(files)) {
      const insert = q.prepare("INSERT INTO jobs (id, name, lane, data, created_at, run_after) VALUES (?, 't', ?, '{}', ?, ?)");
      q.transaction(() => {
        for (let i = pending; i < target; i++) insert.run(`j${i}`, i % 4, now0, now0 + 3_600_000);
      })();
    }
    pending = target;
    const x = usPer(100, () => nextDue(files.plain, 1, 64, false));
    const y = usPer(100, () => nextDue(files.due, 1, 64, false));
    console.log(`${String(target).padStart(10)} ${f(x)}   ${f(y)}   ${(y / x).toFixed(3)}`);
  }
  for (const q of Object.values(files)) q.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
