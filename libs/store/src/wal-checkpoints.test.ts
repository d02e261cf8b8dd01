import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openSqlite, WAL_AUTOCHECKPOINT_PAGES, WAL_BACKSTOP_PAGES } from "./sqlite.js";
import { checkpointWhenDue, walFrames } from "./wal-checkpoints.js";

describe("a WAL's checkpoints from another connection", () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });
  /** A writer that leaves checkpoints to another connection, with a table `t`. */
  const writerOf = () => {
    dir = mkdtempSync(join(tmpdir(), "tocsin-wal-"));
    const file = join(dir, "t.db");
    const writer = openSqlite(file, { checkpoints: "elsewhere" });
    writer.exec("CREATE TABLE t (s TEXT)");
    const insert = writer.prepare("INSERT INTO t VALUES (?)");
    /** Commits `n` rows of about a page each: about one WAL frame each. */
    const write = (n: number) =>
      writer.transaction(() => {
        for (let i = 0; i < n; i++) insert.run("x".repeat(3000));
      })();
    return { file, writer, write };
  };

  it("reads the frames waiting in the WAL, and none once another connection checkpointed them", () => {
    const { file, writer, write } = writerOf();
    write(200);
    const waiting = walFrames(file).waiting;
    expect(waiting).toBeGreaterThanOrEqual(200);
    const checkpointer = openSqlite(file);
    const [done] = checkpointer.pragma("wal_checkpoint(PASSIVE)") as Array<{ log: number; checkpointed: number }>;
    expect(done?.log).toBe(waiting);
    expect(walFrames(file).waiting).toBe(0);
    // The writer's next commit starts the log again: only its own frames wait.
    write(10);
    expect(walFrames(file).waiting).toBeGreaterThanOrEqual(10);
    expect(walFrames(file).waiting).toBeLessThan(waiting);
    checkpointer.close();
    writer.close();
  });

  it("reads 0 for a database nobody opened in WAL mode", () => {
    dir = mkdtempSync(join(tmpdir(), "tocsin-wal-"));
    expect(walFrames(join(dir, "none.db")).waiting).toBe(0);
  });

  it("checkpoints only once the given number of frames wait", () => {
    const { file, writer, write } = writerOf();
    const checkpointer = openSqlite(file);
    write(50);
    const before = walFrames(file).waiting;
    expect(checkpointWhenDue(checkpointer, before + 1)).toBe(false);
    expect(walFrames(file).waiting).toBe(before);
    expect(checkpointWhenDue(checkpointer, before)).toBe(true);
    expect(walFrames(file).waiting).toBe(0);
    expect(checkpointer.prepare("SELECT COUNT(*) AS n FROM t").get()).toEqual({ n: 50 });
    checkpointer.close();
    writer.close();
  });

  it("near the writer's own checkpoint, checkpoints whatever waits, so that the writer finds next to nothing left", () => {
    const { file, writer, write } = writerOf();
    const checkpointer = openSqlite(file);
    write(50);
    const { written, waiting } = walFrames(file);
    expect(waiting).toBe(written);
    // Far from a backstop (none, or one past the log and a quarter of the threshold): it waits for the threshold.
    expect(checkpointWhenDue(checkpointer, 1000)).toBe(false);
    expect(checkpointWhenDue(checkpointer, 1000, written + 251)).toBe(false);
    // Within a quarter of the threshold of it: it copies the few frames there are.
    expect(checkpointWhenDue(checkpointer, 1000, written + 250)).toBe(true);
    expect(walFrames(file)).toEqual({ written, waiting: 0 });
    // Nothing waits: nothing to run.
    expect(checkpointWhenDue(checkpointer, 1000, written)).toBe(false);
    checkpointer.close();
    writer.close();
  });

  it("leaves the writer's own checkpoint as the WAL's bound, at the backstop", () => {
    const { writer } = writerOf();
    expect(writer.pragma("wal_autocheckpoint", { simple: true })).toBe(WAL_BACKSTOP_PAGES);
    const here = openSqlite(join(dir as string, "here.db"));
    expect(here.pragma("wal_autocheckpoint", { simple: true })).toBe(WAL_AUTOCHECKPOINT_PAGES);
    here.close();
    // The connection that accepts alerts leaves every checkpoint of its file to another one.
    const never = openSqlite(join(dir as string, "never.db"), { checkpoints: "never" });
    expect(never.pragma("wal_autocheckpoint", { simple: true })).toBe(0);
    never.close();
    writer.close();
  });
});
