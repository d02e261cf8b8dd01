import { KeyedLock } from "@tocsin/core";
import { isDuplicateKey, MongoSequences } from "@tocsin/store";
import type { Db, Filter } from "mongodb";
import type { ActivityEntry, Alert, AlertStatus } from "../../domain/alerts/model.js";
import type { AlertQuery, AlertStore, NewAlert } from "../../domain/alerts/ports.js";
import { opApplied, openAlertExists, RESOLVED, severityCode, severityOf, statusCode, statusOf } from "./codes.js";
import { activitySeq, COLLECTIONS, IdBlocks, INSERT_RETRIES } from "./mongo-common.js";

interface AlertDoc {
  /** The alert id as a string: FerretDB 1.x answers `{ _id: "<string>" }` from its primary key. */
  _id: string;
  id: number;
  project_id: number;
  iid: number;
  integration_id: number;
  title: string;
  description: string;
  severity: number;
  status: number;
  service: string;
  monitoring_tool: string;
  hosts: string[];
  events: number;
  fingerprint: string | null;
  started_at: Date;
  ended_at: Date | null;
  environment_name: string;
  incident_iid: number;
  /** JSON text: payload keys may contain `.` or `$`. */
  payload_json: string;
  create_op: string;
  /** Recent processing steps applied to the alert (trimmed), for idempotent re-runs. */
  applied_ops: string[];
  rev: number;
  open_key: string;
  /** The activity notes written with the alert (later ones are in `alert_activity`). */
  notes?: Array<{ key: string; note: string; at: Date; seq: number }>;
  created_at: Date;
  updated_at: Date;
}

/** `open_alerts`: where to find the unresolved alert of `<project>:<fingerprint>` (its `_id`). */
interface OpenDoc {
  _id: string;
  alert_id: number;
}

interface ActivityDoc {
  _id: string;
  alert_id: number;
  note: string;
  at: Date;
  seq: number;
}

const KEEP_OPS = 32;
const TRIM_AT = 64;

const openKey = (projectId: number, fingerprint: string | null, status: number, id: number) =>
  fingerprint && status !== RESOLVED ? `${projectId}:${fingerprint}` : `closed:${id}`;

function toAlert(d: AlertDoc): Alert {
  return {
    id: d.id,
    projectId: d.project_id,
    iid: d.iid,
    integrationId: d.integration_id,
    title: d.title,
    description: d.description,
    severity: severityOf(d.severity),
    status: statusOf(d.status),
    service: d.service,
    monitoringTool: d.monitoring_tool,
    hosts: d.hosts,
    events: d.events,
    fingerprint: d.fingerprint ?? undefined,
    startedAt: d.started_at,
    endedAt: d.ended_at ?? undefined,
    environmentName: d.environment_name,
    incidentIid: d.incident_iid,
    payload: JSON.parse(d.payload_json) as Record<string, unknown>,
    createdAt: d.created_at,
    updatedAt: d.updated_at,
  };
}

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * Alerts on MongoDB or FerretDB. Every lookup on the processing path is an `_id` equality, the only
 * filter FerretDB 1.x (SQLite backend) pushes down instead of scanning the collection:
 * alerts by `String(id)`, the open alert of a fingerprint through `open_alerts` (`_id` =
 * `<project>:<fingerprint>`), sequences by name. The one-open-alert rule stays a unique index
 * over `open_key` in `alerts`; `open_alerts` is only a signpost, checked against the alert it
 * names (a stale one, left by a resolve or a crash, is ignored, and a missing one is restored
 * when an insert hits the index).
 */
export class MongoAlertStore implements AlertStore {
  private readonly lock = new KeyedLock<number>();
  private readonly sequences: MongoSequences;
  private readonly ids: IdBlocks;
  /** Alert ids that `findOpen` signposted for a fingerprint it saw first, for `create` to use. */
  private readonly reserved = new Map<string, number>();

  /**
   * `conditionalFilters`: put the conditions of a change in its filter (MongoDB: atomic, and
   * served by the `_id` index). Off on FerretDB, whose updates are not atomic anyway and which
   * scans for any filter but a bare `_id`: there the conditions are checked on the document read
   * by `_id` under the per-alert lock (see docs/architecture.md).
   */
  constructor(
    private readonly db: Db,
    private readonly conditionalFilters = true,
  ) {
    this.sequences = new MongoSequences(db);
    this.ids = new IdBlocks(this.sequences, "alerts");
  }
  private get alerts() {
    return this.db.collection<AlertDoc>(COLLECTIONS.alerts);
  }
  private get openCol() {
    return this.db.collection<OpenDoc>(COLLECTIONS.openAlerts);
  }
  private get activityCol() {
    return this.db.collection<ActivityDoc>(COLLECTIONS.activity);
  }

  async create(input: NewAlert): Promise<Alert> {
    const a = input.alert;
    const status = statusCode(input.status);
    const fingerprint = a.fingerprint ?? null;
    const fingerprintKey = fingerprint !== null ? `${input.projectId}:${fingerprint}` : undefined;
    const openAs = status !== RESOLVED ? fingerprintKey : undefined;
    // The id `findOpen` already signposted for this fingerprint, if it saw it first.
    let reservedId = fingerprintKey === undefined ? undefined : this.reserved.get(fingerprintKey);
    if (fingerprintKey !== undefined) this.reserved.delete(fingerprintKey);
    // No look-up first: the caller has just looked for the open alert, and the unique indexes
    // answer a conflict (an iid is then lost, only in that race).
    for (let attempt = 0; attempt < INSERT_RETRIES; attempt++) {
      const id = reservedId ?? (await this.ids.next());
      const signposted = reservedId !== undefined;
      reservedId = undefined;
      const doc: AlertDoc = {
        _id: String(id),
        id,
        project_id: input.projectId,
        iid: await this.sequences.next(`alerts:${input.projectId}`),
        integration_id: input.integrationId,
        title: a.title,
        description: a.description ?? "",
        severity: severityCode(a.severity),
        status,
        service: a.service ?? "",
        monitoring_tool: a.monitoringTool ?? "",
        hosts: a.hosts,
        events: 1,
        fingerprint,
        started_at: new Date(a.startedAt),
        ended_at: input.status === "resolved" ? new Date(a.endedAt ?? input.at) : null,
        environment_name: a.environmentName ?? "",
        incident_iid: 0,
        payload_json: JSON.stringify(a.payload),
        create_op: input.opKey,
        applied_ops: [input.opKey],
        rev: 1,
        open_key: openAs ?? `closed:${id}`,
        notes: (input.notes ?? []).map((n) => ({ key: n.key, note: n.note, at: input.at, seq: activitySeq() })),
        created_at: input.at,
        updated_at: input.at,
      };
      try {
        await this.alerts.insertOne(doc);
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
        // Rare paths, allowed to scan: which unique rule was hit?
        if (await this.alerts.findOne({ create_op: input.opKey })) throw opApplied();
        const open = openAs ? await this.alerts.findOne({ open_key: openAs }) : null;
        if (open && openAs) {
          await this.signpost(openAs, open.id);
          throw openAlertExists();
        }
        continue; // the id or iid was taken (another process): again
      }
      if (openAs && !signposted) await this.signpost(openAs, id);
      return toAlert(doc);
    }
    throw new Error("could not allocate an alert iid");
  }

  /**
   * FerretDB 1.x: a `find` that matches nothing reads the whole collection, but an insert checks
   * its unique `_id` in an index. So a fingerprint is first probed with an insert of its
   * signpost, pointing at an alert id taken in advance: when it goes in, the fingerprint has no
   * signpost, hence no open alert (an alert is signposted right after its insert, and one left
   * unsignposted by a crash is found when the next insert hits the unique index), and `create`
   * gives that id to the alert. A signpost whose alert never comes is ignored like a stale one.
   */
  private async signpostFirstSight(key: string): Promise<boolean> {
    const id = await this.ids.next();
    try {
      await this.openCol.insertOne({ _id: key, alert_id: id });
    } catch (err) {
      if (isDuplicateKey(err)) return false;
      throw err;
    }
    if (this.reserved.size >= 1000) this.reserved.clear(); // unused ones only cost an update later
    this.reserved.set(key, id);
    return true;
  }

  /**
   * Points `openKey` at the alert. An insert for a fingerprint seen for the first time (FerretDB
   * 1.x reads the whole collection for every update, even by `_id`, but not for an insert); an
   * update when the fingerprint had an alert before.
   */
  private async signpost(openKey: string, alertId: number) {
    try {
      await this.openCol.insertOne({ _id: openKey, alert_id: alertId });
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      await this.openCol.updateOne({ _id: openKey }, { $set: { alert_id: alertId } });
    }
  }

  async findOpen(projectId: number, fingerprint: string) {
    const key = `${projectId}:${fingerprint}`;
    if (!this.conditionalFilters && (await this.signpostFirstSight(key))) return undefined;
    const sign = await this.openCol.findOne({ _id: key });
    if (!sign) return undefined;
    const d = await this.alerts.findOne({ _id: String(sign.alert_id) });
    return d && d.open_key === key ? toAlert(d) : undefined;
  }

  async findByOp(projectId: number, opKey: string) {
    const d = await this.alerts.findOne({ project_id: projectId, $or: [{ create_op: opKey }, { applied_ops: opKey }] });
    return d ? { alert: toAlert(d), created: d.create_op === opKey } : undefined;
  }

  /** One conditional update that also records the op; trims the op list when it grows. */
  private applyOp(alertId: number, opKey: string, set: Partial<AlertDoc>, inc: Partial<Record<"events", number>>) {
    return this.lock.run(alertId, () => this.applyOpNow(alertId, opKey, set, inc));
  }

  private async applyOpNow(alertId: number, opKey: string, set: Partial<AlertDoc>, inc: Partial<Record<"events", number>>) {
    const _id = String(alertId);
    let filter: Filter<AlertDoc> = { _id, status: { $ne: RESOLVED }, applied_ops: { $ne: opKey } };
    if (!this.conditionalFilters) {
      const current = await this.alerts.findOne({ _id });
      if (!current || current.status === RESOLVED || current.applied_ops.includes(opKey)) return undefined;
      filter = { _id };
    }
    // FerretDB ignores `$push.$slice`: the op list is trimmed in the same write when it is long.
    const d = await this.alerts.findOneAndUpdate(
      filter,
      { $set: set, $inc: { ...inc, rev: 1 }, $push: { applied_ops: opKey } },
      { returnDocument: "after" },
    );
    if (!d) return undefined;
    if (d.applied_ops.length > TRIM_AT) {
      const trimmed = this.conditionalFilters ? { _id, rev: d.rev } : { _id };
      await this.alerts.updateOne(trimmed, { $set: { applied_ops: d.applied_ops.slice(-KEEP_OPS) } });
    }
    return toAlert(d);
  }

  async registerEvent(alertId: number, opKey: string, at: Date) {
    return this.applyOp(alertId, opKey, { updated_at: at }, { events: 1 });
  }

  async resolve(alertId: number, endedAt: Date, opKey: string, at: Date) {
    return this.applyOp(
      alertId,
      opKey,
      { status: RESOLVED, ended_at: endedAt, updated_at: at, open_key: `closed:${alertId}` },
      {},
    );
  }

  setStatus(alertId: number, status: AlertStatus, endedAt: Date | undefined, at: Date): Promise<Alert> {
    return this.lock.run(alertId, () => this.setStatusNow(alertId, status, endedAt, at));
  }

  private async setStatusNow(alertId: number, status: AlertStatus, endedAt: Date | undefined, at: Date): Promise<Alert> {
    const current = await this.alerts.findOne({ _id: String(alertId) });
    if (!current) throw new Error(`alert ${alertId} vanished`);
    const code = statusCode(status);
    try {
      const d = await this.alerts.findOneAndUpdate(
        { _id: String(alertId) },
        {
          $set: {
            status: code,
            ended_at: endedAt ?? null,
            updated_at: at,
            open_key: openKey(current.project_id, current.fingerprint, code, alertId),
          },
          $inc: { rev: 1 },
        },
        { returnDocument: "after" },
      );
      if (!d) throw new Error(`alert ${alertId} vanished`);
      if (!d.open_key.startsWith("closed:")) await this.signpost(d.open_key, alertId);
      return toAlert(d);
    } catch (err) {
      if (isDuplicateKey(err)) throw openAlertExists();
      throw err;
    }
  }

  async linkIncident(alertId: number, incidentIid: number, at: Date) {
    await this.lock.run(alertId, () =>
      this.alerts.updateOne({ _id: String(alertId) }, { $set: { incident_iid: incidentIid, updated_at: at } }),
    );
  }

  async get(projectId: number, iid: number) {
    const d = await this.alerts.findOne({ project_id: projectId, iid });
    return d ? toAlert(d) : undefined;
  }

  async getById(alertId: number) {
    const d = await this.alerts.findOne({ _id: String(alertId) });
    return d ? toAlert(d) : undefined;
  }

  async list(projectId: number, q: AlertQuery) {
    const filter: Filter<AlertDoc> = { project_id: projectId };
    if (q.status) filter.status = statusCode(q.status);
    if (q.search) {
      const regex = { $regex: escapeRegex(q.search), $options: "i" };
      filter.$or = ["title", "description", "service", "monitoring_tool", "hosts"].map((f) => ({
        [f]: regex,
      })) as Filter<AlertDoc>[];
    }
    const dir = q.sort === "asc" ? 1 : -1;
    // Severity ascending means less critical first: its stored order is inverted.
    const sort =
      q.orderBy === "severity" ? { severity: -dir, id: dir } : { [q.orderBy === "iid" ? "iid" : q.orderBy]: dir, id: dir };
    const [docs, total] = await Promise.all([
      this.alerts
        .find(filter)
        .sort(sort as Record<string, 1 | -1>)
        .skip(q.offset)
        .limit(q.limit)
        .toArray(),
      this.alerts.countDocuments(filter),
    ]);
    return { alerts: docs.map(toAlert), total };
  }

  async addActivity(alertId: number, key: string, note: string, at: Date) {
    try {
      await this.activityCol.insertOne({ _id: `${alertId}:${key}`, alert_id: alertId, note, at, seq: activitySeq() });
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
  }

  async activity(alertId: number): Promise<ActivityEntry[]> {
    const [alert, docs] = await Promise.all([
      this.alerts.findOne({ _id: String(alertId) }, { projection: { notes: 1 } }),
      this.activityCol.find({ alert_id: alertId }).sort({ seq: 1 }).toArray(),
    ]);
    const embedded = alert?.notes ?? [];
    const later = docs.filter((d) => !embedded.some((n) => `${alertId}:${n.key}` === d._id));
    return [...embedded, ...later].sort((a, b) => a.seq - b.seq).map((d) => ({ note: d.note, createdAt: d.at }));
  }
}
