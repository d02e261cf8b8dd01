import type { Db, Document } from "mongodb";

/** A command the driver sent (command monitoring), for the hot-path tests. */
export interface Sent {
  name: string;
  command: Document;
}

/** The filters of a recorded command (one per statement of an update or delete). */
export function filtersOf(s: Sent): Document[] {
  const c = s.command;
  if (s.name === "find") return [c.filter ?? {}];
  if (s.name === "findAndModify") return [c.query ?? {}];
  if (s.name === "count") return [c.query ?? {}];
  if (s.name === "update") return (c.updates as Document[]).map((u) => u.q);
  if (s.name === "delete") return (c.deletes as Document[]).map((d) => d.q);
  if (s.name === "aggregate") {
    const match = (c.pipeline as Document[]).find((stage) => "$match" in stage);
    return [match?.$match ?? {}];
  }
  return [];
}

/** The top-level fields of `filter` compared by equality (a value, not an operator document). */
function equalityFields(filter: Document): Set<string> {
  const out = new Set<string>();
  for (const [k, v] of Object.entries(filter)) {
    if (k.startsWith("$")) continue;
    const isOperator =
      v !== null && typeof v === "object" && !(v instanceof Date) && Object.keys(v).some((x) => x.startsWith("$"));
    if (!isOperator || "$eq" in v || "$in" in v) out.add(k);
  }
  return out;
}

/**
 * Whether MongoDB can answer `filter` from one of `indexes` (as `listIndexes` gives them): an
 * `_id` equality, or an index whose first key is an equality of the filter, or, for a filter of
 * an `$or`, every branch served (with the filter's own equalities). The index MongoDB's planner
 * would use, checked where the server (FerretDB 1.x) cannot say.
 */
export function servingIndex(filter: Document, indexes: Document[]): boolean {
  const own = equalityFields(filter);
  const byIndex = (fields: Set<string>) =>
    fields.has("_id") || indexes.some((ix) => fields.has(Object.keys(ix.key as Document)[0] ?? ""));
  if (byIndex(own)) return true;
  const or = filter.$or as Document[] | undefined;
  return !!or && or.length > 0 && or.every((branch) => byIndex(new Set([...own, ...equalityFields(branch)])));
}

/** The stages of a plan tree (`winningPlan`, with its `inputStage(s)` and `queryPlan`). */
function stagesOf(plan: Document | undefined, out: string[] = []): string[] {
  if (!plan || typeof plan !== "object") return out;
  if (typeof plan.stage === "string") out.push(plan.stage);
  for (const key of ["inputStage", "queryPlan", "winningPlan"]) stagesOf(plan[key] as Document | undefined, out);
  for (const child of (plan.inputStages as Document[] | undefined) ?? []) stagesOf(child, out);
  return out;
}

/**
 * Real MongoDB: the `COLLSCAN` stages of the plan of a recorded `find`, `findAndModify`,
 * `update`, `delete`, `count` or `aggregate` (`explain`, queryPlanner verbosity). Other commands
 * (inserts) have no plan.
 */
export async function collectionScans(db: Db, s: Sent): Promise<string[]> {
  if (!["find", "findAndModify", "update", "delete", "count", "aggregate"].includes(s.name)) return [];
  const { lsid: _l, $db: _d, $clusterTime: _c, txnNumber: _t, ...command } = s.command;
  const plan = await db.command({ explain: command, verbosity: "queryPlanner" });
  const planners = [plan.queryPlanner, ...((plan.stages as Document[] | undefined) ?? []).map((st) => st.$cursor?.queryPlanner)];
  return planners
    .flatMap((qp: Document | undefined) => stagesOf(qp?.winningPlan as Document | undefined))
    .filter((st) => st === "COLLSCAN");
}
