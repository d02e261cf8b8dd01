import { prepared } from "@tocsin/store";
import type { Database } from "better-sqlite3";
import type { Escalation, PageStep } from "../../domain/paging/model.js";
import type { EscalationStore } from "../../domain/paging/ports.js";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS escalations (
  alert_id INTEGER PRIMARY KEY,
  trigger_op TEXT NOT NULL,
  triggered_at INTEGER NOT NULL,
  policy TEXT
);
CREATE TABLE IF NOT EXISTS page_steps (
  key TEXT PRIMARY KEY,
  alert_id INTEGER NOT NULL,
  trigger_op TEXT NOT NULL,
  rule INTEGER NOT NULL,
  round INTEGER NOT NULL,
  users TEXT NOT NULL,
  stopped INTEGER NOT NULL,
  at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS page_steps_alert ON page_steps (alert_id, at);
`;

interface EscalationRow {
  alert_id: number;
  trigger_op: string;
  triggered_at: number;
  policy: string | null;
}

interface StepRow {
  key: string;
  alert_id: number;
  trigger_op: string;
  rule: number;
  round: number;
  users: string;
  stopped: number;
  at: number;
}

const toEscalation = (r: EscalationRow): Escalation => ({
  alertId: r.alert_id,
  triggerOp: r.trigger_op,
  triggeredAt: new Date(r.triggered_at),
  policy: r.policy === null ? null : JSON.parse(r.policy),
});

const toStep = (r: StepRow): PageStep => ({
  key: r.key,
  alertId: r.alert_id,
  triggerOp: r.trigger_op,
  rule: r.rule,
  round: r.round,
  users: JSON.parse(r.users),
  stopped: r.stopped === 1,
  at: new Date(r.at),
});

/** EscalationStore in alert.db (joins the alert stores' batch transaction on the same connection). */
export function createSqliteEscalationStore(db: Database): EscalationStore {
  db.exec(SCHEMA);
  const getRow = (alertId: number) =>
    prepared(db, "SELECT * FROM escalations WHERE alert_id = ?").get(alertId) as EscalationRow | undefined;
  const getStepRow = (key: string) => prepared(db, "SELECT * FROM page_steps WHERE key = ?").get(key) as StepRow | undefined;
  return {
    async start(e) {
      prepared(
        db,
        `INSERT INTO escalations (alert_id, trigger_op, triggered_at, policy) VALUES (?, ?, ?, ?)
         ON CONFLICT (alert_id) DO UPDATE SET trigger_op = excluded.trigger_op, triggered_at = excluded.triggered_at,
           policy = excluded.policy
         WHERE escalations.trigger_op <> excluded.trigger_op AND excluded.triggered_at >= escalations.triggered_at`,
      ).run(e.alertId, e.triggerOp, e.triggeredAt.getTime(), e.policy ? JSON.stringify(e.policy) : null);
      return toEscalation(getRow(e.alertId) as EscalationRow);
    },
    async get(alertId) {
      const row = getRow(alertId);
      return row ? toEscalation(row) : undefined;
    },
    async recordStep(s) {
      prepared(
        db,
        "INSERT OR IGNORE INTO page_steps (key, alert_id, trigger_op, rule, round, users, stopped, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
      ).run(s.key, s.alertId, s.triggerOp, s.rule, s.round, JSON.stringify(s.users), s.stopped ? 1 : 0, s.at.getTime());
      return toStep(getStepRow(s.key) as StepRow);
    },
    async getStep(key) {
      const row = getStepRow(key);
      return row ? toStep(row) : undefined;
    },
    async steps(alertId) {
      const rows = prepared(db, "SELECT * FROM page_steps WHERE alert_id = ? ORDER BY at, rowid").all(alertId) as StepRow[];
      return rows.map(toStep);
    },
  };
}
