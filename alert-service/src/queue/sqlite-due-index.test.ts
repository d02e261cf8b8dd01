import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { logger } from "./queue.int.fixtures.js";
import { SqliteJobQueue } from "./sqlite/sqlite-job-queue.js";

/** The read of a lane's due jobs in an unordered queue (sqlite/lanes.ts, `nextDue`). */
const DUE = "SELECT seq, id FROM jobs WHERE lane = ? AND status = 'pending' AND run_after <= ? ORDER BY run_after, seq LIMIT ?";

describe("the SQLite queue's read of due jobs", () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });
  const planOf = async (ordered: boolean) => {
    dir = mkdtempSync(join(tmpdir(), "tocsin-due-"));
    const file = join(dir, "q.db");
    const queue = new SqliteJobQueue({ file, logger, ordered });
    await queue.add({ id: "later", name: "timer", lane: 1, data: {}, delayMs: 3_600_000 });
    const db = new Database(file, { readonly: true });
    try {
      const plan = db.prepare(`EXPLAIN QUERY PLAN ${DUE}`).all(1, Date.now(), 64) as Array<{ detail: string }>;
      const indexes = db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'jobs'").all() as Array<{
        name: string;
      }>;
      return { plan: plan.map((p) => p.detail).join("; "), indexes: indexes.map((i) => i.name) };
    } finally {
      db.close();
      await queue.close();
    }
  };

  it("in an unordered queue (timers, mail) is a range of an index, not a sort of every pending job", async () => {
    const { plan } = await planOf(false);
    expect(plan).toContain("USING INDEX jobs_pending_due (lane=? AND run_after<?)");
    expect(plan).not.toContain("TEMP B-TREE");
  });

  it("costs an ordered queue (the alert lanes) no index entry on its adds", async () => {
    expect((await planOf(true)).indexes).not.toContain("jobs_pending_due");
  });
});
