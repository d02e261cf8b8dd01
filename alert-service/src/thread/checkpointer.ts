import { parentPort, workerData } from "node:worker_threads";
import { checkpointWhenDue, openSqlite, WAL_BACKSTOP_PAGES } from "@tocsin/store";
import type { CheckpointerData } from "./checkpoint-thread.js";

/**
 * The checkpointer thread (see checkpoint-thread.ts): its own connection to each file, a look at
 * each file's WAL every `pollMs`, and a PASSIVE checkpoint of a file once `pages` frames wait.
 * Near the writers' backstop it copies whatever waits, so that the writer's own checkpoint there
 * finds next to nothing left. A checkpoint that throws (an I/O error) ends the thread; the writer's backstop takes over.
 */
const port = parentPort;
if (!port) throw new Error("thread/checkpointer.ts runs as a worker thread (see thread/checkpoint-thread.ts)");
const { files, pages, pollMs } = workerData as CheckpointerData;
const dbs = files.map((file) => openSqlite(file));
const timer = setInterval(() => {
  for (const db of dbs) checkpointWhenDue(db, pages, WAL_BACKSTOP_PAGES);
}, pollMs);

port.on("message", (message: { type: "stop" }) => {
  if (message.type !== "stop") return;
  clearInterval(timer);
  for (const db of dbs) db.close();
  port.close();
});
