import type { Db } from "mongodb";
import { COLLECTIONS, isFerretDb } from "./mongo-common.js";

/**
 * How the server reads an alert by `_id` (issue 25 item 4), from its `explain` of that `find`:
 * `indexed` from the index scripts/ferretdb-*-id-indexes.* add to FerretDB 1.x, `scan` when
 * FerretDB's SQLite backend scans the table for it, `unknown` otherwise (MongoDB, which serves it
 * from `_id`; FerretDB's PostgreSQL backend, whose planner scans a small table even with the index).
 */
export async function ferretDbIdReads(db: Db): Promise<"indexed" | "scan" | "unknown"> {
  if (!(await isFerretDb(db))) return "unknown";
  const { queryPlanner } = await db.command({ explain: { find: COLLECTIONS.alerts, filter: { _id: "0" } } });
  const plan = JSON.stringify(queryPlanner ?? null);
  if (plan.includes("_tocsin_id")) return "indexed";
  return plan.includes("detail=SCAN ") ? "scan" : "unknown";
}
