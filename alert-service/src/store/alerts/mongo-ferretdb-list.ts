import type { Collection, Filter } from "mongodb";
import type { AlertDoc } from "./mongo-alert-docs.js";
import { type AlertScans, bounded, tooLate } from "./mongo-alert-scans.js";

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
 * How long a list waits for others to share its read: the console's poll of the alerts page is
 * five REST calls at once (the list and four tab counts), which reach alert-service a few
 * milliseconds apart. Against a read of a second or more on FerretDB.
 */
const GATHER_MS = 25;

/** One list: its status (a code; none: every status), order and page. */
export interface ListRequest {
  status: number | undefined;
  sort: ListSort;
  offset: number;
  limit: number;
  /** The caller's deadline (epoch ms), if any. */
  deadlineMs: number | undefined;
}

interface Waiting extends ListRequest {
  resolve(page: { docs: AlertDoc[]; total: number }): void;
  reject(err: unknown): void;
}

/**
 * The alert lists on FerretDB 1.x. FerretDB filters, sorts and counts in Go after reading every
 * document of the collection (only a bare `_id` equality reaches its backend), so a list's page
 * and its count each cost a read of the whole collection, and a poll of the console's alerts page
 * asks six lists of one project at once. Here the lists of a project with the same filter, apart
 * from the status, that come within GATHER_MS of each other or wait for the same turn (AlertScans)
 * share one read: a `find` of the sort fields and status of every matching alert, sorted here in
 * MongoDB's order, filtered by status and counted; then the pages' alerts are read by `_id`
 * (pushed down). A page holds only alerts that still have its status when they are read, so an
 * alert whose status changed between the two reads leaves a page one shorter; the total may
 * differ from the page by such an alert, as a page and its count read apart on MongoDB may.
 */
export class FerretDbLists {
  private readonly waiting = new Map<string, Waiting[]>();

  constructor(
    private readonly alerts: () => Collection<AlertDoc>,
    private readonly scans: AlertScans,
  ) {}

  /** A page of the alerts matching `filter` (no `status` in it) and `request`, with their total. */
  list(filter: Filter<AlertDoc>, request: ListRequest): Promise<{ docs: AlertDoc[]; total: number }> {
    const key = JSON.stringify(filter);
    return new Promise((resolve, reject) => {
      const group = this.waiting.get(key);
      if (group) {
        group.push({ ...request, resolve, reject });
        return;
      }
      this.waiting.set(key, [{ ...request, resolve, reject }]);
      // Lists of the same filter that come before this turn starts join it: it waits GATHER_MS
      // for them, then for the turns before it (`serve` never fails).
      setTimeout(() => void this.scans.turn(() => this.serve(key, filter)), GATHER_MS);
    });
  }

  /** Serves the lists waiting under `key`, one read for all, bounded by their latest deadline. */
  private async serve(key: string, filter: Filter<AlertDoc>): Promise<void> {
    const now = Date.now();
    const waiting = this.waiting.get(key) ?? [];
    this.waiting.delete(key);
    const group = waiting.filter((w) => {
      if (w.deadlineMs === undefined || w.deadlineMs > now) return true;
      w.reject(tooLate());
      return false;
    });
    if (group.length === 0) return;
    const deadlines = group.map((w) => w.deadlineMs);
    const latest = deadlines.includes(undefined) ? undefined : Math.max(...(deadlines as number[]));
    try {
      const pages = await bounded(latest, async (bound) => {
        const fields = new Set<keyof AlertDoc>(["status", ...group.flatMap((w) => w.sort.map(([field]) => field))]);
        const projection = Object.fromEntries([...fields].map((field) => [field, 1]));
        const keys = await this.alerts()
          .find(filter, { projection, ...bound() })
          .toArray();
        // Sorted once per order (a poll's lists share one), then filtered by status in that order.
        const orders = new Map<string, typeof keys>();
        const inOrder = (sort: ListSort) => {
          const order = JSON.stringify(sort);
          const sorted = orders.get(order) ?? sortedAsMongo(keys, sort);
          orders.set(order, sorted);
          return sorted;
        };
        const chosen = group.map((w) => {
          const matching = w.status === undefined ? inOrder(w.sort) : inOrder(w.sort).filter((k) => k.status === w.status);
          return {
            ids: matching.slice(w.offset, w.offset + w.limit).map((k) => k._id),
            total: matching.length,
            status: w.status,
          };
        });
        const wanted = [...new Set(chosen.flatMap((c) => c.ids))];
        const docs = await Promise.all(wanted.map((_id) => this.alerts().findOne({ _id }, bound())));
        const byId = new Map(docs.flatMap((d) => (d ? [[d._id, d] as const] : [])));
        // Alerts are never deleted: a miss would be a document gone between the two reads. An
        // alert whose status changed between them no longer matches its list: left out, as
        // MongoDB returns only documents that match the filter when it reads them.
        return chosen.map(({ ids, total, status }) => {
          const page = ids.flatMap((id) => byId.get(id) ?? []);
          return { docs: status === undefined ? page : page.filter((d) => d.status === status), total };
        });
      });
      for (const [i, w] of group.entries()) w.resolve(pages[i] as { docs: AlertDoc[]; total: number });
    } catch (err) {
      for (const w of group) w.reject(err);
    }
  }
}
