import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { until } from "@tocsin/testing";
import { afterEach, describe, expect, it } from "vitest";
import { openSqlite } from "./sqlite.js";
import { deleteInChunks, isBusy, tryWrite, WRITE_LOCK_TIMEOUT_MS, writeWhenFree } from "./write-lock.js";

describe("writing while another connection holds the write lock", () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });
  /** Two connections to one file with a table `t`: the writer under test, and one that takes the lock. */
  const twoConnections = () => {
    dir = mkdtempSync(join(tmpdir(), "tocsin-write-lock-"));
    const file = join(dir, "t.db");
    const writer = openSqlite(file);
    writer.exec("CREATE TABLE t (n INTEGER)");
    return { writer, holder: openSqlite(file) };
  };
  const insert = (db: ReturnType<typeof openSqlite>, n: number) => () => db.prepare("INSERT INTO t VALUES (?)").run(n);

  it("tries once and fails with SQLITE_BUSY at once, then puts the connection's busy timeout back", () => {
    const { writer, holder } = twoConnections();
    holder.exec("BEGIN IMMEDIATE");
    let error: unknown;
    try {
      tryWrite(writer, insert(writer, 1));
    } catch (err) {
      error = err;
    }
    expect(isBusy(error)).toBe(true);
    expect(writer.pragma("busy_timeout", { simple: true })).toBe(WRITE_LOCK_TIMEOUT_MS);
    holder.exec("COMMIT");
    tryWrite(writer, insert(writer, 1));
    expect(writer.prepare("SELECT COUNT(*) AS n FROM t").get()).toEqual({ n: 1 });
    writer.close();
    holder.close();
  });

  it("waits for the lock on timers, the event loop running meanwhile, and writes once it is free", async () => {
    const { writer, holder } = twoConnections();
    holder.exec("BEGIN IMMEDIATE");
    let ticks = 0;
    const ticking = setInterval(() => ticks++, 1);
    let written = false;
    const write = writeWhenFree(writer, insert(writer, 7)).then(() => {
      written = true;
    });
    // Timers fire while the write waits: SQLite's busy handler would have slept this thread.
    await until(() => ticks >= 5);
    expect(written).toBe(false);
    holder.exec("COMMIT");
    await write;
    clearInterval(ticking);
    expect(writer.prepare("SELECT n FROM t").all()).toEqual([{ n: 7 }]);
    writer.close();
    holder.close();
  });

  it("gives up with SQLITE_BUSY after its timeout, having written nothing", async () => {
    const { writer, holder } = twoConnections();
    holder.exec("BEGIN IMMEDIATE");
    const error = await writeWhenFree(writer, insert(writer, 1), 30).catch((err: unknown) => err);
    expect(isBusy(error)).toBe(true);
    holder.exec("ROLLBACK");
    expect(writer.prepare("SELECT COUNT(*) AS n FROM t").get()).toEqual({ n: 0 });
    writer.close();
    holder.close();
  });

  it("passes other errors through at once", async () => {
    const { writer, holder } = twoConnections();
    await expect(writeWhenFree(writer, () => writer.prepare("INSERT INTO nowhere VALUES (1)").run())).rejects.toThrow(
      /no such table/,
    );
    writer.close();
    holder.close();
  });

  it("deletes in chunks, each its own write: between two the file is free, and a chunk waits for a lock on timers", async () => {
    const { writer, holder } = twoConnections();
    writer.exec("WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 100) INSERT INTO t SELECT n FROM c");
    const count = () => (holder.prepare("SELECT COUNT(*) AS n FROM t").get() as { n: number }).n;
    // The holder takes the lock as soon as a first chunk is gone: the next chunk must then wait.
    let between: number | undefined;
    let ticks = 0;
    const watching = setInterval(() => {
      if (between === undefined && count() < 100) {
        between = count();
        holder.exec("BEGIN IMMEDIATE");
      } else if (between !== undefined) ticks++;
    }, 1);
    let deleted: number | undefined;
    const purge = deleteInChunks(writer, "DELETE FROM t WHERE rowid IN (SELECT rowid FROM t WHERE n > ? LIMIT ?)", [10], 20).then(
      (n) => {
        deleted = n;
      },
    );
    await until(() => ticks >= 5);
    clearInterval(watching);
    expect(between).toBe(80);
    expect(deleted).toBeUndefined();
    holder.exec("COMMIT");
    await purge;
    expect(deleted).toBe(90);
    expect(count()).toBe(10);
    writer.close();
    holder.close();
  });
});
