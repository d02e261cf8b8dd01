import { isDuplicateKey, openSqlite, prepared } from "@tocsin/store";
import type Database from "better-sqlite3";
import { nameTaken, policyExists } from "../domain/oncall/errors.js";
import type { OncallStore, ScheduleFields } from "../domain/oncall/ports.js";
import type {
  Override,
  OverrideFields,
  Policy,
  PolicyFields,
  Rotation,
  RotationFields,
  Schedule,
} from "../domain/oncall/types.js";

// Names unique per project / per schedule and one policy per project are the tables' own keys;
// schedule iids come from a per-project counter, so a deleted schedule's iid is never reused.
const SCHEMA = `
CREATE TABLE IF NOT EXISTS oncall_iids (project_id INTEGER PRIMARY KEY, last_iid INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS oncall_schedules (
  project_id INTEGER NOT NULL, iid INTEGER NOT NULL, name TEXT NOT NULL, description TEXT NOT NULL, timezone TEXT NOT NULL,
  PRIMARY KEY (project_id, iid), UNIQUE (project_id, name)
);
CREATE TABLE IF NOT EXISTS oncall_rotations (
  id INTEGER PRIMARY KEY AUTOINCREMENT, project_id INTEGER NOT NULL, schedule_iid INTEGER NOT NULL, name TEXT NOT NULL,
  fields TEXT NOT NULL, UNIQUE (project_id, schedule_iid, name)
);
CREATE TABLE IF NOT EXISTS oncall_overrides (
  id INTEGER PRIMARY KEY AUTOINCREMENT, project_id INTEGER NOT NULL, schedule_iid INTEGER NOT NULL, user_id INTEGER NOT NULL,
  starts_at INTEGER NOT NULL, ends_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS oncall_overrides_schedule ON oncall_overrides (project_id, schedule_iid, starts_at);
CREATE TABLE IF NOT EXISTS escalation_policies (
  id INTEGER PRIMARY KEY AUTOINCREMENT, project_id INTEGER NOT NULL UNIQUE, fields TEXT NOT NULL
);
`;

interface ScheduleRow {
  project_id: number;
  iid: number;
  name: string;
  description: string;
  timezone: string;
}
interface RotationRow {
  id: number;
  project_id: number;
  schedule_iid: number;
  fields: string;
}
interface OverrideRow {
  id: number;
  project_id: number;
  schedule_iid: number;
  user_id: number;
  starts_at: number;
  ends_at: number;
}
interface PolicyRow {
  id: number;
  project_id: number;
  fields: string;
}

const toSchedule = (r: ScheduleRow): Schedule => ({
  projectId: r.project_id,
  iid: r.iid,
  name: r.name,
  description: r.description,
  timezone: r.timezone,
});
const toRotation = (r: RotationRow): Rotation => ({
  id: r.id,
  projectId: r.project_id,
  scheduleIid: r.schedule_iid,
  ...(JSON.parse(r.fields) as RotationFields),
});
const toOverride = (r: OverrideRow): Override => ({
  id: r.id,
  projectId: r.project_id,
  scheduleIid: r.schedule_iid,
  userId: r.user_id,
  startsAt: new Date(r.starts_at),
  endsAt: new Date(r.ends_at),
});
const toPolicy = (r: PolicyRow): Policy => ({ id: r.id, projectId: r.project_id, ...(JSON.parse(r.fields) as PolicyFields) });

/** Runs a write; a unique-key failure becomes `onDuplicate()`. */
function unique<T>(write: () => T, onDuplicate: () => Error): T {
  try {
    return write();
  } catch (err) {
    if (isDuplicateKey(err)) throw onDuplicate();
    throw err;
  }
}

/** OncallStore on the embedded SQLite database (settings.db), or `:memory:` in tests. */
export class SqliteOncallStore implements OncallStore {
  private readonly db: Database.Database;
  private readonly insertSchedule: (projectId: number, fields: ScheduleFields) => Schedule;

  constructor(file: string) {
    this.db = openSqlite(file);
    this.db.exec(SCHEMA);
    this.insertSchedule = this.db.transaction((projectId: number, fields: ScheduleFields) => {
      const { last_iid: iid } = this.q(
        `INSERT INTO oncall_iids (project_id, last_iid) VALUES (?, 1)
         ON CONFLICT (project_id) DO UPDATE SET last_iid = last_iid + 1 RETURNING last_iid`,
      ).get(projectId) as { last_iid: number };
      this.q("INSERT INTO oncall_schedules (project_id, iid, name, description, timezone) VALUES (?, ?, ?, ?, ?)").run(
        projectId,
        iid,
        fields.name,
        fields.description,
        fields.timezone,
      );
      return { projectId, iid, ...fields };
    }).immediate as never;
  }

  private q(sql: string) {
    return prepared(this.db, sql);
  }

  async createSchedule(projectId: number, fields: ScheduleFields): Promise<Schedule> {
    return unique(() => this.insertSchedule(projectId, fields), nameTaken);
  }
  async listSchedules(projectId: number): Promise<Schedule[]> {
    return (this.q("SELECT * FROM oncall_schedules WHERE project_id = ? ORDER BY iid").all(projectId) as ScheduleRow[]).map(
      toSchedule,
    );
  }
  async getSchedule(projectId: number, iid: number): Promise<Schedule | undefined> {
    const row = this.q("SELECT * FROM oncall_schedules WHERE project_id = ? AND iid = ?").get(projectId, iid) as
      | ScheduleRow
      | undefined;
    return row && toSchedule(row);
  }
  async updateSchedule(projectId: number, iid: number, fields: ScheduleFields): Promise<Schedule | undefined> {
    const sql = "UPDATE oncall_schedules SET name = ?, description = ?, timezone = ? WHERE project_id = ? AND iid = ?";
    const { changes } = unique(
      () => this.q(sql).run(fields.name, fields.description, fields.timezone, projectId, iid),
      nameTaken,
    );
    return changes > 0 ? { projectId, iid, ...fields } : undefined;
  }
  async deleteSchedule(projectId: number, iid: number): Promise<boolean> {
    return this.db.transaction(() => {
      this.q("DELETE FROM oncall_rotations WHERE project_id = ? AND schedule_iid = ?").run(projectId, iid);
      this.q("DELETE FROM oncall_overrides WHERE project_id = ? AND schedule_iid = ?").run(projectId, iid);
      return this.q("DELETE FROM oncall_schedules WHERE project_id = ? AND iid = ?").run(projectId, iid).changes > 0;
    })();
  }

  async createRotation(projectId: number, scheduleIid: number, fields: RotationFields): Promise<Rotation> {
    const sql = "INSERT INTO oncall_rotations (project_id, schedule_iid, name, fields) VALUES (?, ?, ?, ?)";
    const { lastInsertRowid } = unique(
      () => this.q(sql).run(projectId, scheduleIid, fields.name, JSON.stringify(fields)),
      nameTaken,
    );
    return { id: Number(lastInsertRowid), projectId, scheduleIid, ...fields };
  }
  async listRotations(projectId: number, scheduleIid: number): Promise<Rotation[]> {
    const sql = "SELECT * FROM oncall_rotations WHERE project_id = ? AND schedule_iid = ? ORDER BY id";
    return (this.q(sql).all(projectId, scheduleIid) as RotationRow[]).map(toRotation);
  }
  async getRotation(projectId: number, scheduleIid: number, id: number): Promise<Rotation | undefined> {
    const sql = "SELECT * FROM oncall_rotations WHERE project_id = ? AND schedule_iid = ? AND id = ?";
    const row = this.q(sql).get(projectId, scheduleIid, id) as RotationRow | undefined;
    return row && toRotation(row);
  }
  async updateRotation(
    projectId: number,
    scheduleIid: number,
    id: number,
    fields: RotationFields,
  ): Promise<Rotation | undefined> {
    const sql = "UPDATE oncall_rotations SET name = ?, fields = ? WHERE project_id = ? AND schedule_iid = ? AND id = ?";
    const { changes } = unique(() => this.q(sql).run(fields.name, JSON.stringify(fields), projectId, scheduleIid, id), nameTaken);
    return changes > 0 ? { id, projectId, scheduleIid, ...fields } : undefined;
  }
  async deleteRotation(projectId: number, scheduleIid: number, id: number): Promise<boolean> {
    const sql = "DELETE FROM oncall_rotations WHERE project_id = ? AND schedule_iid = ? AND id = ?";
    return this.q(sql).run(projectId, scheduleIid, id).changes > 0;
  }

  async createOverride(projectId: number, scheduleIid: number, fields: OverrideFields): Promise<Override> {
    const sql = "INSERT INTO oncall_overrides (project_id, schedule_iid, user_id, starts_at, ends_at) VALUES (?, ?, ?, ?, ?)";
    const { lastInsertRowid } = this.q(sql).run(
      projectId,
      scheduleIid,
      fields.userId,
      fields.startsAt.getTime(),
      fields.endsAt.getTime(),
    );
    return { id: Number(lastInsertRowid), projectId, scheduleIid, ...fields };
  }
  async listOverrides(projectId: number, scheduleIid: number, range?: { from: Date; to: Date }): Promise<Override[]> {
    const from = range ? range.from.getTime() : Number.MIN_SAFE_INTEGER;
    const to = range ? range.to.getTime() : Number.MAX_SAFE_INTEGER;
    const sql = `SELECT * FROM oncall_overrides WHERE project_id = ? AND schedule_iid = ? AND ends_at > ? AND starts_at < ?
                 ORDER BY starts_at, id`;
    return (this.q(sql).all(projectId, scheduleIid, from, to) as OverrideRow[]).map(toOverride);
  }
  async deleteOverride(projectId: number, scheduleIid: number, id: number): Promise<boolean> {
    const sql = "DELETE FROM oncall_overrides WHERE project_id = ? AND schedule_iid = ? AND id = ?";
    return this.q(sql).run(projectId, scheduleIid, id).changes > 0;
  }

  async createPolicy(projectId: number, fields: PolicyFields): Promise<Policy> {
    const sql = "INSERT INTO escalation_policies (project_id, fields) VALUES (?, ?)";
    const { lastInsertRowid } = unique(() => this.q(sql).run(projectId, JSON.stringify(fields)), policyExists);
    return { id: Number(lastInsertRowid), projectId, ...fields };
  }
  async getPolicy(projectId: number): Promise<Policy | undefined> {
    const row = this.q("SELECT * FROM escalation_policies WHERE project_id = ?").get(projectId) as PolicyRow | undefined;
    return row && toPolicy(row);
  }
  async updatePolicy(projectId: number, id: number, fields: PolicyFields): Promise<Policy | undefined> {
    const sql = "UPDATE escalation_policies SET fields = ? WHERE project_id = ? AND id = ?";
    return this.q(sql).run(JSON.stringify(fields), projectId, id).changes > 0 ? { id, projectId, ...fields } : undefined;
  }
  async deletePolicy(projectId: number, id: number): Promise<boolean> {
    return this.q("DELETE FROM escalation_policies WHERE project_id = ? AND id = ?").run(projectId, id).changes > 0;
  }

  async ping(): Promise<void> {
    this.q("SELECT 1").get();
  }
  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
