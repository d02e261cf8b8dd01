import { isDuplicateKey, MongoSequences } from "@tocsin/store";
import { type Collection, type Db, MongoClient } from "mongodb";
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

interface ScheduleDoc extends Schedule {
  _id?: unknown;
}
interface RotationDoc {
  _id: number;
  projectId: number;
  scheduleIid: number;
  name: string;
  fields: RotationFields;
}
interface OverrideDoc {
  _id: number;
  projectId: number;
  scheduleIid: number;
  userId: number;
  startsAt: Date;
  endsAt: Date;
}
interface PolicyDoc {
  _id: number;
  projectId: number;
  fields: PolicyFields;
}

/** Plain data without undefined members (the driver would store them as null). */
const plain = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

const toSchedule = ({ projectId, iid, name, description, timezone }: ScheduleDoc): Schedule => ({
  projectId,
  iid,
  name,
  description,
  timezone,
});
const toRotation = (d: RotationDoc): Rotation => ({ id: d._id, projectId: d.projectId, scheduleIid: d.scheduleIid, ...d.fields });
const toOverride = (d: OverrideDoc): Override => ({
  id: d._id,
  projectId: d.projectId,
  scheduleIid: d.scheduleIid,
  userId: d.userId,
  startsAt: d.startsAt,
  endsAt: d.endsAt,
});
const toPolicy = (d: PolicyDoc): Policy => ({ id: d._id, projectId: d.projectId, ...d.fields });

async function unique<T>(write: () => Promise<T>, onDuplicate: () => Error): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (isDuplicateKey(err)) throw onDuplicate();
    throw err;
  }
}

/**
 * OncallStore on MongoDB (or FerretDB 1.x): unique indexes hold the names and the one policy per
 * project; ids come from `MongoSequences`. Without multi-document transactions, deleting a
 * schedule deletes its rotations and overrides first, so a crash leaves a schedule that a
 * repeated delete finishes, never orphans.
 */
export class MongoOncallStore implements OncallStore {
  private constructor(
    private readonly client: MongoClient | undefined,
    private readonly db: Db,
    private readonly schedules: Collection<ScheduleDoc>,
    private readonly rotations: Collection<RotationDoc>,
    private readonly overrides: Collection<OverrideDoc>,
    private readonly policies: Collection<PolicyDoc>,
    private readonly seq: MongoSequences,
  ) {}

  /** Connects (when given a URL) and creates the indexes. */
  static async open(urlOrDb: string | Db, dbName?: string): Promise<MongoOncallStore> {
    const client =
      typeof urlOrDb === "string" ? await new MongoClient(urlOrDb, { serverSelectionTimeoutMS: 5000 }).connect() : undefined;
    const db = client ? client.db(dbName) : (urlOrDb as Db);
    const schedules = db.collection<ScheduleDoc>("oncall_schedules");
    const rotations = db.collection<RotationDoc>("oncall_rotations");
    const overrides = db.collection<OverrideDoc>("oncall_overrides");
    const policies = db.collection<PolicyDoc>("escalation_policies");
    await schedules.createIndex({ projectId: 1, iid: 1 }, { unique: true, name: "project_iid_unique" });
    await schedules.createIndex({ projectId: 1, name: 1 }, { unique: true, name: "project_name_unique" });
    await rotations.createIndex({ projectId: 1, scheduleIid: 1, name: 1 }, { unique: true, name: "schedule_name_unique" });
    await overrides.createIndex({ projectId: 1, scheduleIid: 1, startsAt: 1 }, { name: "schedule_starts" });
    await policies.createIndex({ projectId: 1 }, { unique: true, name: "project_unique" });
    return new MongoOncallStore(client, db, schedules, rotations, overrides, policies, new MongoSequences(db));
  }

  /**
   * Inserts under the next number of `sequence`. A duplicate key is the rule `taken()` checks
   * (→ `onTaken()`), or else a number FerretDB handed to two processes: then the next one.
   */
  private async insertNumbered<T>(
    sequence: string,
    taken: () => Promise<boolean>,
    onTaken: () => Error,
    insert: (id: number) => Promise<T>,
  ): Promise<T> {
    for (;;) {
      try {
        return await insert(await this.seq.next(sequence));
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
        if (await taken()) throw onTaken();
      }
    }
  }

  async createSchedule(projectId: number, fields: ScheduleFields): Promise<Schedule> {
    const taken = async () => (await this.schedules.findOne({ projectId, name: fields.name })) !== null;
    // Checked first too, so that a taken name does not use up an iid (the index still decides).
    if (await taken()) throw nameTaken();
    return this.insertNumbered(`oncall_schedule_iid:${projectId}`, taken, nameTaken, async (iid) => {
      await this.schedules.insertOne({ projectId, iid, ...fields });
      return { projectId, iid, ...fields };
    });
  }
  async listSchedules(projectId: number): Promise<Schedule[]> {
    return (await this.schedules.find({ projectId }).sort({ iid: 1 }).toArray()).map(toSchedule);
  }
  async getSchedule(projectId: number, iid: number): Promise<Schedule | undefined> {
    const doc = await this.schedules.findOne({ projectId, iid });
    return doc ? toSchedule(doc) : undefined;
  }
  async updateSchedule(projectId: number, iid: number, fields: ScheduleFields): Promise<Schedule | undefined> {
    const { matchedCount } = await unique(() => this.schedules.updateOne({ projectId, iid }, { $set: { ...fields } }), nameTaken);
    return matchedCount > 0 ? { projectId, iid, ...fields } : undefined;
  }
  async deleteSchedule(projectId: number, iid: number): Promise<boolean> {
    await this.rotations.deleteMany({ projectId, scheduleIid: iid });
    await this.overrides.deleteMany({ projectId, scheduleIid: iid });
    return (await this.schedules.deleteOne({ projectId, iid })).deletedCount > 0;
  }

  async createRotation(projectId: number, scheduleIid: number, fields: RotationFields): Promise<Rotation> {
    const taken = async () => (await this.rotations.findOne({ projectId, scheduleIid, name: fields.name })) !== null;
    return this.insertNumbered("oncall_rotation_id", taken, nameTaken, async (_id) => {
      const doc = { _id, projectId, scheduleIid, name: fields.name, fields: plain(fields) };
      await this.rotations.insertOne(doc);
      return toRotation(doc);
    });
  }
  async listRotations(projectId: number, scheduleIid: number): Promise<Rotation[]> {
    return (await this.rotations.find({ projectId, scheduleIid }).sort({ _id: 1 }).toArray()).map(toRotation);
  }
  async getRotation(projectId: number, scheduleIid: number, id: number): Promise<Rotation | undefined> {
    const doc = await this.rotations.findOne({ _id: id, projectId, scheduleIid });
    return doc ? toRotation(doc) : undefined;
  }
  async updateRotation(
    projectId: number,
    scheduleIid: number,
    id: number,
    fields: RotationFields,
  ): Promise<Rotation | undefined> {
    const update = { $set: { name: fields.name, fields: plain(fields) } };
    const { matchedCount } = await unique(() => this.rotations.updateOne({ _id: id, projectId, scheduleIid }, update), nameTaken);
    return matchedCount > 0 ? { id, projectId, scheduleIid, ...plain(fields) } : undefined;
  }
  async deleteRotation(projectId: number, scheduleIid: number, id: number): Promise<boolean> {
    return (await this.rotations.deleteOne({ _id: id, projectId, scheduleIid })).deletedCount > 0;
  }

  async createOverride(projectId: number, scheduleIid: number, fields: OverrideFields): Promise<Override> {
    return this.insertNumbered(
      "oncall_override_id",
      async () => false,
      policyExists,
      async (_id) => {
        const doc = { _id, projectId, scheduleIid, ...fields };
        await this.overrides.insertOne(doc);
        return toOverride(doc);
      },
    );
  }
  async listOverrides(projectId: number, scheduleIid: number, range?: { from: Date; to: Date }): Promise<Override[]> {
    const filter = range
      ? { projectId, scheduleIid, endsAt: { $gt: range.from }, startsAt: { $lt: range.to } }
      : { projectId, scheduleIid };
    return (await this.overrides.find(filter).sort({ startsAt: 1, _id: 1 }).toArray()).map(toOverride);
  }
  async deleteOverride(projectId: number, scheduleIid: number, id: number): Promise<boolean> {
    return (await this.overrides.deleteOne({ _id: id, projectId, scheduleIid })).deletedCount > 0;
  }

  async createPolicy(projectId: number, fields: PolicyFields): Promise<Policy> {
    const exists = async () => (await this.policies.findOne({ projectId })) !== null;
    return this.insertNumbered("escalation_policy_id", exists, policyExists, async (_id) => {
      const doc = { _id, projectId, fields: plain(fields) };
      await this.policies.insertOne(doc);
      return toPolicy(doc);
    });
  }
  async getPolicy(projectId: number): Promise<Policy | undefined> {
    const doc = await this.policies.findOne({ projectId });
    return doc ? toPolicy(doc) : undefined;
  }
  async updatePolicy(projectId: number, id: number, fields: PolicyFields): Promise<Policy | undefined> {
    const { matchedCount } = await this.policies.updateOne({ _id: id, projectId }, { $set: { fields: plain(fields) } });
    return matchedCount > 0 ? { id, projectId, ...plain(fields) } : undefined;
  }
  async deletePolicy(projectId: number, id: number): Promise<boolean> {
    return (await this.policies.deleteOne({ _id: id, projectId })).deletedCount > 0;
  }

  async ping(): Promise<void> {
    await this.db.command({ ping: 1 });
  }
  async close(): Promise<void> {
    await this.client?.close();
  }
}
