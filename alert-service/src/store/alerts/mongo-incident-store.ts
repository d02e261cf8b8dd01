import { TtlCache } from "@tocsin/core";
import { isDuplicateKey, MongoSequences } from "@tocsin/store";
import type { Db } from "mongodb";
import {
  type AlertOutcome,
  type AlertSettings,
  DEFAULT_ALERT_SETTINGS,
  type Incident,
  type IncidentStatus,
} from "../../domain/alerts/model.js";
import type { IncidentStore, IngestAnswer, OpenIncident, RequestLog } from "../../domain/alerts/ports.js";
import { severityCode, severityOf } from "./codes.js";
import { COLLECTIONS, INSERT_RETRIES } from "./mongo-common.js";

interface IncidentDoc {
  _id: number;
  project_id: number;
  iid: number;
  alert_id: number;
  alert_iid: number;
  title: string;
  severity: number;
  status: IncidentStatus;
  created_at: Date;
  closed_at: Date | null;
}
/** The one-document layout of a project's settings (`_id` = project id), read as a fallback. */
interface SettingsDoc {
  /** The project id as a string (FerretDB pushes down only string `_id` filters). */
  _id: string;
  create_incident?: boolean;
  auto_close_incident?: boolean;
  send_email?: boolean;
  /** One field of the current layout: `_id` = `<project id>:<field>`. */
  value?: boolean;
  updated_at: Date;
}
interface IdempotencyDoc {
  _id: string;
  answer: IngestAnswer;
  expires_at: Date;
}
interface JobStartDoc {
  _id: string;
  at: Date;
}
interface JobDoc {
  _id: string;
  outcome: AlertOutcome;
  at: Date;
}

const toIncident = (d: IncidentDoc): Incident => ({
  id: d._id,
  projectId: d.project_id,
  iid: d.iid,
  title: d.title,
  severity: severityOf(d.severity),
  status: d.status,
  alertId: d.alert_id,
  alertIid: d.alert_iid,
  createdAt: d.created_at,
  closedAt: d.closed_at ?? undefined,
});

const FIELDS: Record<keyof AlertSettings, "create_incident" | "auto_close_incident" | "send_email"> = {
  createIncident: "create_incident",
  autoCloseIncident: "auto_close_incident",
  sendEmail: "send_email",
};

export class MongoIncidentStore implements IncidentStore {
  private readonly sequences: MongoSequences;

  constructor(private readonly db: Db) {
    this.sequences = new MongoSequences(db);
  }
  private get incidents() {
    return this.db.collection<IncidentDoc>(COLLECTIONS.incidents);
  }
  private get settingsCol() {
    return this.db.collection<SettingsDoc>(COLLECTIONS.settings);
  }

  async openForAlert(input: OpenIncident) {
    for (let attempt = 0; attempt < INSERT_RETRIES; attempt++) {
      const existing = await this.getByAlert(input.alertId);
      if (existing) return { incident: existing, created: false };
      const iid = await this.sequences.next(`incidents:${input.projectId}`);
      const doc: IncidentDoc = {
        _id: await this.sequences.next("incidents"),
        project_id: input.projectId,
        iid,
        alert_id: input.alertId,
        alert_iid: input.alertIid,
        title: input.title ?? `New: Incident ${iid}`,
        severity: severityCode(input.severity),
        status: "open",
        created_at: input.at,
        closed_at: null,
      };
      try {
        await this.incidents.insertOne(doc);
        return { incident: toIncident(doc), created: true };
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
      }
    }
    throw new Error("could not allocate an incident iid");
  }

  async close(incidentId: number, at: Date) {
    const d = await this.incidents.findOneAndUpdate(
      { _id: incidentId, status: "open" },
      { $set: { status: "closed", closed_at: at } },
      { returnDocument: "after" },
    );
    return d ? toIncident(d) : undefined;
  }

  async getByAlert(alertId: number) {
    const d = await this.incidents.findOne({ alert_id: alertId });
    return d ? toIncident(d) : undefined;
  }

  async get(projectId: number, iid: number) {
    const d = await this.incidents.findOne({ project_id: projectId, iid });
    return d ? toIncident(d) : undefined;
  }

  async list(projectId: number, status: IncidentStatus | undefined, offset: number, limit: number) {
    const filter = status ? { project_id: projectId, status } : { project_id: projectId };
    const [docs, total] = await Promise.all([
      this.incidents.find(filter).sort({ iid: -1 }).skip(offset).limit(limit).toArray(),
      this.incidents.countDocuments(filter),
    ]);
    return { incidents: docs.map(toIncident), total };
  }

  /** Settings read lately, for callers that accept a value up to `maxAgeMs` old (the processing path). */
  /** Settings this process read, for a reader that accepts them up to `maxAgeMs` old. */
  private readonly recent = new TtlCache<number, AlertSettings>();

  /**
   * Each setting is its own document (`<project>:<field>`, bare string `_id`s), so changes of
   * different settings through two replicas at once never share a document (FerretDB 1.x rewrites
   * the whole document on `$set`); a project's older one-document settings (`_id` = project id)
   * answer for a field that has no document of its own yet.
   */
  async settings(projectId: number, maxAgeMs = 0): Promise<AlertSettings> {
    const cached = this.recent.get(projectId, maxAgeMs);
    if (cached) return { ...cached };
    const keys = Object.keys(FIELDS) as Array<keyof AlertSettings>;
    const [legacy, ...fields] = await Promise.all([
      this.settingsCol.findOne({ _id: String(projectId) }),
      ...keys.map((key) => this.settingsCol.findOne({ _id: `${projectId}:${FIELDS[key]}` })),
    ]);
    const value = { ...DEFAULT_ALERT_SETTINGS };
    keys.forEach((key, i) => {
      const own = fields[i]?.value;
      const old = legacy?.[FIELDS[key]];
      if (typeof own === "boolean") value[key] = own;
      else if (typeof old === "boolean") value[key] = old;
    });
    this.recent.set(projectId, { ...value });
    return value;
  }

  async updateSettings(projectId: number, change: Partial<AlertSettings>, at: Date) {
    this.recent.delete(projectId);
    await Promise.all(
      (Object.keys(FIELDS) as Array<keyof AlertSettings>).map(async (key) => {
        const value = change[key];
        if (value === undefined) return;
        const write = () =>
          this.settingsCol.updateOne(
            { _id: `${projectId}:${FIELDS[key]}` },
            { $set: { value, updated_at: at } },
            { upsert: true },
          );
        // Two replicas creating the document at once: FerretDB does not retry the losing upsert.
        await write().catch((err: unknown) => {
          if (isDuplicateKey(err)) return write();
          throw err;
        });
      }),
    );
    this.recent.delete(projectId);
    return this.settings(projectId);
  }
}

export class MongoRequestLog implements RequestLog {
  constructor(private readonly db: Db) {}
  private get keys() {
    return this.db.collection<IdempotencyDoc>(COLLECTIONS.idempotency);
  }
  private get jobs() {
    return this.db.collection<JobDoc>(COLLECTIONS.processedJobs);
  }
  private get starts() {
    return this.db.collection<JobStartDoc>(COLLECTIONS.jobStarts);
  }

  async reserve(integrationId: number, key: string, answer: IngestAnswer, expiresAt: Date, now: Date) {
    const _id = `${integrationId}:${key}`;
    for (let i = 0; i < 3; i++) {
      try {
        await this.keys.insertOne({ _id, answer, expires_at: expiresAt });
        return { answer, existed: false };
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
      }
      // By `_id` alone (FerretDB serves nothing else from an index); expiry is checked here.
      const found = await this.keys.findOne({ _id });
      if (found && found.expires_at > now) return { answer: found.answer, existed: true };
      if (found) await this.keys.deleteOne({ _id, expires_at: { $lte: now } });
    }
    throw new Error("idempotency record contention");
  }

  async recordJob(jobId: string, outcome: AlertOutcome, at: Date) {
    try {
      await this.jobs.insertOne({ _id: jobId, outcome, at });
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
  }

  /** A start record per job (`job_starts`, by `_id`): inserting it tells a first run from a re-run. */
  async startJob(jobId: string, at: Date) {
    try {
      await this.starts.insertOne({ _id: jobId, at });
      return { firstRun: true };
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
    return { outcome: (await this.jobs.findOne({ _id: jobId }))?.outcome, firstRun: false };
  }

  async jobOutcomes(jobIds: readonly string[]) {
    const docs = await this.jobs.find({ _id: { $in: [...jobIds] } }).toArray();
    return new Map(docs.map((d) => [d._id, d.outcome]));
  }

  async purge(now: Date, before: Date) {
    await this.keys.deleteMany({ expires_at: { $lte: now } });
    await this.jobs.deleteMany({ at: { $lt: before } });
    await this.starts.deleteMany({ at: { $lt: before } });
  }
}
