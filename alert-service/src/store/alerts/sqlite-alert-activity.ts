import { prepared } from "@tocsin/store";
import type { Database } from "better-sqlite3";
import type { ActivityEntry } from "../../domain/alerts/model.js";

/** Notes written with an alert (`alerts.notes`), as stored. */
type RowNotes = Array<{ key: string; note: string }>;

/**
 * The notes written with the alert (`alerts.notes`, first, dated by its creation), then the later
 * ones in the order written; a later note under the key of one written with the alert is that
 * note again (idempotent by key, as `SqliteAlertStore.addActivity`'s INSERT OR IGNORE is among
 * later notes).
 */
export function readActivity(db: Database, alertId: number): ActivityEntry[] {
  const alert = prepared(db, "SELECT notes, created_at FROM alerts WHERE id = ?").get(alertId) as
    | { notes: string | null; created_at: number }
    | undefined;
  const embedded = alert?.notes ? (JSON.parse(alert.notes) as RowNotes) : [];
  const rows = prepared(db, "SELECT key, note, at FROM alert_activity WHERE alert_id = ? ORDER BY seq").all(alertId) as Array<{
    key: string;
    note: string;
    at: number;
  }>;
  const keys = new Set(embedded.map((n) => n.key));
  return [
    ...embedded.map((n) => ({ note: n.note, createdAt: new Date(alert?.created_at ?? 0) })),
    ...rows.filter((r) => !keys.has(r.key)).map((r) => ({ note: r.note, createdAt: new Date(r.at) })),
  ];
}
