import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLogger } from "@tocsin/core";
import { openSqlite, walFrames } from "@tocsin/store";
import { until } from "@tocsin/testing";
import { afterEach, describe, expect, it } from "vitest";
import { startCheckpointThread } from "./checkpoint-thread.js";

describe("the checkpoint thread", () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });
  const lines: string[] = [];
  const logger = createLogger("test", "info", { write: (line: string) => void lines.push(line) });

  it("copies a writer's WAL into its database once enough frames wait, and stops", async () => {
    dir = mkdtempSync(join(tmpdir(), "tocsin-ckpt-"));
    const file = join(dir, "alert.db");
    const writer = openSqlite(file, { checkpoints: "elsewhere" });
    writer.exec("CREATE TABLE t (s TEXT)");
    const insert = writer.prepare("INSERT INTO t VALUES (?)");
    const thread = startCheckpointThread([file], logger, { pages: 100, pollMs: 5 });
    writer.transaction(() => {
      for (let i = 0; i < 220; i++) insert.run("x".repeat(3000));
    })();
    // The writer's own checkpoint runs at 64,000 frames only: the thread copied these.
    await until(() => walFrames(file).waiting === 0);
    // The writer starts its log again, and the database holds every row.
    insert.run("z");
    expect(walFrames(file).waiting).toBeLessThan(10);
    await thread.stop();
    expect(writer.prepare("SELECT COUNT(*) AS n FROM t").get()).toEqual({ n: 221 });
    writer.close();
    expect(lines.filter((line) => line.includes('"level":50'))).toEqual([]);
  });

  it("logs a thread that cannot open its files, and still stops", async () => {
    dir = mkdtempSync(join(tmpdir(), "tocsin-ckpt-"));
    const thread = startCheckpointThread([dir], logger, { pollMs: 5 }); // a folder, not a database file
    await until(() => lines.some((line) => line.includes("checkpoint thread failed")));
    await thread.stop();
  });
});
