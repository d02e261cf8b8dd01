import { KeyedLock } from "@tocsin/core";
import { isDuplicateKey, MongoSequences } from "@tocsin/store";
import type { Db, Filter } from "mongodb";
import type { ActivityEntry, Alert, AlertStatus } from "../../domain/alerts/model.js";
import type { AlertQuery, AlertStore, NewAlert } from "../../domain/alerts/ports.js";
import { opApplied, openAlertExists, RESOLVED, severityCode, statusCode } from "./codes.js";
import { type ActivityDoc, type AlertDoc, KEEP_OPS, openKey, TRIM_AT, toAlert } from "./mongo-alert-docs.js";
import { AlertScans } from "./mongo-alert-scans.js";
import { activitySeq, COLLECTIONS, IdBlocks, INSERT_RETRIES } from "./mongo-common.js";
import { FerretDbLists, type ListSort } from "./mongo-ferretdb-list.js";
import { OpenAlertSignposts } from "./mongo-signposts.js";

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * Alerts on MongoDB or FerretDB. Every lookup on the processing path is a bare string `_id`
 * equality (the only filter FerretDB 1.x pushes down to its backend): alerts by `String(id)`,
 * the open alert of a fingerprint through its signpost in `open_alerts`, sequences by name; and
 * a new alert is written with inserts, the one write FerretDB 1.x does not scan for (see
 * docs/architecture.md). The one-open-alert rule stays a unique index over `open_key`.
 */
export class MongoAlertStore implements AlertStore {
  private readonly lock = new KeyedLock<number>();
  private readonly ferretDb: boolean;
  private readonly scans: AlertScans;
  /** FerretDB: the lists, sharing their reads of the project's alerts. */
  private readonly lists: FerretDbLists | undefined;
  private readonly sequences: MongoSequences;
  private readonly ids: IdBlocks;
  private readonly signposts: OpenAlertSignposts;

  /**
   * `ferretDb`: on MongoDB the conditions of a change are in its filter (atomic, and served by the
   * `_id` index). On FerretDB, whose updates are not atomic anyway and which scans for any filter
   * but a bare `_id`, they are checked on the document read by `_id` under the per-alert lock (see
   * docs/architecture.md). `scans`: the turns of the reads that go through a project's alerts
   * (shared with the overview; one at a time on FerretDB, where lists share them: FerretDbLists).
   */
  constructor(
    private readonly db: Db,
    { ferretDb = false, scans = new AlertScans(ferretDb) }: { ferretDb?: boolean; scans?: AlertScans } = {},
  ) {
    this.ferretDb = ferretDb;
    this.scans = scans;
    this.lists = ferretDb ? new FerretDbLists(() => this.alerts, scans) : undefined;
    this.sequences = new MongoSequences(db);
    this.ids = new IdBlocks(this.sequences, "alerts");
    this.signposts = new OpenAlertSignposts(db, this.ids);
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
    const fingerprintKey = fingerprint !== null ? `${input.projectId}:${fingerprint}` : undefined;
    const openAs = status !== RESOLVED ? fingerprintKey : undefined;
    // The id `findOpen` already signposted for this fingerprint, if it saw it first.
    const reservedId = fingerprintKey === undefined ? undefined : this.signposts.takeReserved(fingerprintKey);
    // No look-up first: the caller has just looked for the open alert, and the unique indexes
    // answer a conflict (an iid is then lost, only in that race).
    // The id is this process's own (id blocks are claimed), so a retry keeps it (and its signpost).
    const id = reservedId ?? (await this.ids.next());
    const signposted = reservedId !== undefined;
    const iids = `alerts:${input.projectId}`;
    let iid = await this.sequences.next(iids);
    let guesses = 0;
    for (let attempt = 0; attempt < INSERT_RETRIES; attempt++) {
      const doc: AlertDoc = {
        _id: String(id),
        id,
        project_id: input.projectId,
        iid,
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
        // Which unique rule was hit? FerretDB does not say. Cheap reads first (bare `_id`s): an
        // open alert of the fingerprint, through its signpost.
        if (openAs && (await this.openThroughSignpost(openAs, id))) throw openAlertExists();
        // Then most likely another replica took the iid (FerretDB's `$inc` is not atomic, and can
        // even step the counter back): the next number above both the counter and this one.
        iid = Math.max(iid + 1, await this.sequences.next(iids));
        if (++guesses % 8 !== 5) continue;
        // Rare paths, allowed to scan (once in a while): a crash left an alert of this op, or an
        // open alert without its signpost.
        if (await this.alerts.findOne({ create_op: input.opKey })) throw opApplied();
        const open = openAs ? await this.alerts.findOne({ open_key: openAs }) : null;
        if (open && openAs) {
          await this.signposts.point(openAs, open.id);
          throw openAlertExists();
        }
        continue; // the id or iid was taken (another process): again
      }
      if (openAs && !signposted) await this.signposts.point(openAs, id);
      // The counter was behind the iids taken: move it past them, so that the next alert does not
      // walk through them again.
      if (guesses > 0) await this.sequences.raise(iids, iid);
      return toAlert(doc);
    }
    throw new Error("could not allocate an alert iid");
  }

  /** Whether the signpost of `key` names an alert (other than `id`) that is open under `key`. */
  private async openThroughSignpost(key: string, id: number): Promise<boolean> {
    const alertId = await this.signposts.lookup(key);
    if (alertId === undefined || alertId === id) return false;
    return (await this.alerts.findOne({ _id: String(alertId) }))?.open_key === key;
  }

  async findOpen(projectId: number, fingerprint: string) {
    const key = `${projectId}:${fingerprint}`;
    if (this.ferretDb && (await this.signposts.probeFirstSight(key))) return undefined;
    const alertId = await this.signposts.lookup(key);
    if (alertId === undefined) return undefined;
    const d = await this.alerts.findOne({ _id: String(alertId) });
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
    if (this.ferretDb) {
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
      const trimmed = this.ferretDb ? { _id } : { _id, rev: d.rev };
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
            // The first acknowledgement stays (the overview's time to acknowledge).
            ...(status === "acknowledged" && !current.acknowledged_at ? { acknowledged_at: at } : {}),
          },
          $inc: { rev: 1 },
        },
        { returnDocument: "after" },
      );
      if (!d) throw new Error(`alert ${alertId} vanished`);
      if (!d.open_key.startsWith("closed:")) await this.signposts.point(d.open_key, alertId);
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

  async list(projectId: number, q: AlertQuery, deadlineMs?: number) {
    const filter: Filter<AlertDoc> = { project_id: projectId };
    if (q.severity) filter.severity = severityCode(q.severity);
    if (q.monitoringTool) filter.monitoring_tool = { $regex: `^${escapeRegex(q.monitoringTool)}$`, $options: "i" };
    if (q.service) filter.service = { $regex: `^${escapeRegex(q.service)}$`, $options: "i" };
    if (q.search) {
      const regex = { $regex: escapeRegex(q.search), $options: "i" };
      filter.$or = ["title", "description", "service", "monitoring_tool", "hosts"].map((f) => ({
        [f]: regex,
      })) as Filter<AlertDoc>[];
    }
    const dir = q.sort === "asc" ? 1 : -1;
    // Severity ascending means less critical first: its stored order is inverted.
    const sort: ListSort =
      q.orderBy === "severity"
        ? [
            ["severity", -dir as 1 | -1],
            ["id", dir],
          ]
        : [
            [q.orderBy, dir],
            ["id", dir],
          ];
    const status = q.status ? statusCode(q.status) : undefined;
    if (this.lists) {
      const { docs, total } = await this.lists.list(filter, { status, sort, offset: q.offset, limit: q.limit, deadlineMs });
      return { alerts: docs.map(toAlert), total };
    }
    if (status !== undefined) filter.status = status;
    // Served by an index, the page and its count side by side; both end at the caller's deadline.
    return this.scans.run(deadlineMs, async (bound) => {
      const [docs, total] = await Promise.all([
        this.alerts.find(filter, bound()).sort(Object.fromEntries(sort)).skip(q.offset).limit(q.limit).toArray(),
        this.alerts.countDocuments(filter, bound()),
      ]);
      return { alerts: docs.map(toAlert), total };
    });
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
