import type { Collection, Filter } from "mongodb";
import type { AlertDoc } from "./mongo-alert-docs.js";
import type { Bound } from "./mongo-alert-scans.js";

/** A list's order: each field ascending (1) or descending (-1), the alert id last. */
export type ListSort = Array<[field: keyof AlertDoc, dir: 1 | -1]>;

/** MongoDB's order of the values a list sorts by: null (an open alert's `ended_at`) first, then by value. */
function compareValues(a: unknown, b: unknown): number {
  if (a === null || a === undefined) return b === null || b === undefined ? 0 : -1;
  if (b === null || b === undefined) return 1;
  const x = a instanceof Date ? a.getTime() : Number(a);
  const y = b instanceof Date ? b.getTime() : Number(b);
  return x - y;
}

/** `docs` in the order `sort` gives them on MongoDB (a new array). */
export function sortedAsMongo<T extends Partial<AlertDoc>>(docs: T[], sort: ListSort): T[] {
  return [...docs].sort((a, b) => {
    for (const [field, dir] of sort) {
      const d = compareValues(a[field], b[field]);
      if (d !== 0) return dir * d;
    }
    return 0;
  });
}

/**
 * A page of alerts and their total on FerretDB 1.x, in one pass over the project's alerts instead
 * of two. FerretDB filters, sorts and counts in Go after reading every document of the collection
 * (only a bare `_id` equality reaches its backend): a `find` of the page and a count each cost that
 * read. Here one `find` brings the sort fields of every matching alert, counted and sorted here, and
 * the page's documents are read by `_id` (pushed down). What a page and its total could differ by
 * (an alert changed between the two reads) is what the two reads on MongoDB could differ by too.
 */
export async function listInOnePass(
  alerts: Collection<AlertDoc>,
  filter: Filter<AlertDoc>,
  sort: ListSort,
  page: { offset: number; limit: number },
  bound: () => Bound,
): Promise<{ docs: AlertDoc[]; total: number }> {
  const projection = Object.fromEntries(sort.map(([field]) => [field, 1]));
  const keys = await alerts.find(filter, { projection, ...bound() }).toArray();
  const wanted = sortedAsMongo(keys, sort).slice(page.offset, page.offset + page.limit);
  const docs = await Promise.all(wanted.map((k) => alerts.findOne({ _id: k._id }, bound())));
  // Alerts are never deleted: a miss would be a document gone between the two reads.
  return { docs: docs.filter((d): d is NonNullable<typeof d> => d !== null), total: keys.length };
}
