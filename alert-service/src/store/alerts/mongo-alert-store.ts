import { KeyedLock } from "@tocsin/core";
import { isDuplicateKey, MongoSequences } from "@tocsin/store";
import type { Db, Filter } from "mongodb";
import type { ActivityEntry, Alert, AlertStatus } from "../../domain/alerts/model.js";
import type { AlertQuery, AlertStore, NewAlert } from "../../domain/alerts/ports.js";
import { opApplied, openAlertExists, RESOLVED, severityCode, severityOf, statusCode, statusOf } from "./codes.js";
import { activitySeq, COLLECTIONS, INSERT_RETRIES } from "./mongo-common.js";

interface AlertDoc {
  _id: number;
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
  created_at: Date;
  updated_at: Date;
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
    id: d._id,
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

export class MongoAlertStore implements AlertStore {
  private readonly lock = new KeyedLock<number>();
  private readonly sequences: MongoSequences;

  constructor(private readonly db: Db) {
    this.sequences = new MongoSequences(db);
  }
  private get alerts() {
    return this.db.collection<AlertDoc>(COLLECTIONS.alerts);
  }
  private get activityCol() {
    return this.db.collection<ActivityDoc>(COLLECTIONS.activity);
  }

  async create(input: NewAlert): Promise<Alert> {
    const a = input.alert;
    const status = statusCode(input.status);
    const fingerprint = a.fingerprint ?? null;
    const wouldBeOpen = fingerprint !== null && status !== RESOLVED;
    for (let attempt = 0; attempt < INSERT_RETRIES; attempt++) {
      if (wouldBeOpen && (await this.findOpen(input.projectId, fingerprint))) throw openAlertExists();
      const id = await this.sequences.next("alerts");
      const doc: AlertDoc = {
        _id: id,
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
        open_key: openKey(input.projectId, fingerprint, status, id),
        created_at: input.at,
        updated_at: input.at,
      };
      try {
        await this.alerts.insertOne(doc);
        return toAlert(doc);
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
        if (await this.alerts.findOne({ create_op: input.opKey })) throw opApplied();
        // Otherwise an open alert appeared (checked at the top) or the id/iid was taken: again.
      }
    }
    throw new Error("could not allocate an alert iid");
  }

  async findOpen(projectId: number, fingerprint: string) {
    const d = await this.alerts.findOne({ open_key: `${projectId}:${fingerprint}` });
    return d ? toAlert(d) : undefined;
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
    const d = await this.alerts.findOneAndUpdate(
      { _id: alertId, status: { $ne: RESOLVED }, applied_ops: { $ne: opKey } },
      { $set: set, $inc: { ...inc, rev: 1 }, $push: { applied_ops: opKey } },
      { returnDocument: "after" },
    );
    if (!d) return undefined;
    // FerretDB ignores `$push.$slice`; trim only if nothing else changed the alert since.
    if (d.applied_ops.length > TRIM_AT) {
      await this.alerts.updateOne({ _id: alertId, rev: d.rev }, { $set: { applied_ops: d.applied_ops.slice(-KEEP_OPS) } });
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
    const current = await this.alerts.findOne({ _id: alertId });
    if (!current) throw new Error(`alert ${alertId} vanished`);
    const code = statusCode(status);
    try {
      const d = await this.alerts.findOneAndUpdate(
        { _id: alertId },
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
      return toAlert(d as AlertDoc);
    } catch (err) {
      if (isDuplicateKey(err)) throw openAlertExists();
      throw err;
    }
  }

  async linkIncident(alertId: number, incidentIid: number, at: Date) {
    await this.lock.run(alertId, () =>
      this.alerts.updateOne({ _id: alertId }, { $set: { incident_iid: incidentIid, updated_at: at } }),
    );
  }

  async get(projectId: number, iid: number) {
    const d = await this.alerts.findOne({ project_id: projectId, iid });
    return d ? toAlert(d) : undefined;
  }

  async getById(alertId: number) {
    const d = await this.alerts.findOne({ _id: alertId });
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
      q.orderBy === "severity" ? { severity: -dir, _id: dir } : { [q.orderBy === "iid" ? "iid" : q.orderBy]: dir, _id: dir };
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
    const docs = await this.activityCol.find({ alert_id: alertId }).sort({ seq: 1 }).toArray();
    return docs.map((d) => ({ note: d.note, createdAt: d.at }));
  }
}
