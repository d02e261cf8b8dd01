import { alreadyExists } from "@tocsin/core";
import { isDuplicateKey, MongoSequences } from "@tocsin/store";
import type { Collection, Db } from "mongodb";
import type { DestinationStore } from "../../domain/channels/ports.js";
import { type DestinationColumns, fromColumns, patchColumns, uniqueKeyOf } from "./codec.js";

type Doc = DestinationColumns & { _id: number };

const SEQUENCE_ID = "channel_destination_id";

function duplicate(err: unknown): never {
  if (isDuplicateKey(err)) throw alreadyExists("DESTINATION_EXISTS", "Integration already exists");
  throw err;
}

const toRecord = (doc: Doc) => fromColumns(doc._id, doc);

/** Destinations in MongoDB: `channel_destinations` (unique project_id + unique_key) and a `counters` sequence. */
export async function createMongoDestinationStore(db: Db): Promise<DestinationStore> {
  const col: Collection<Doc> = db.collection<Doc>("channel_destinations");
  await col.createIndex({ project_id: 1, unique_key: 1 }, { unique: true, name: "project_unique_key" });
  const sequences = new MongoSequences(db);
  return {
    async insert(input) {
      const doc: Doc = {
        _id: await sequences.reserveBlock(SEQUENCE_ID, 1),
        project_id: input.projectId,
        kind: input.kind,
        unique_key: uniqueKeyOf(input.kind),
        url: input.url,
        token: input.token,
        signing_secret: input.signingSecret,
        username: input.username,
        channel: input.channel,
        alert_channel: input.alertChannel,
        incident_channel: input.incidentChannel,
        alert_events: input.alertEvents,
        incident_events: input.incidentEvents,
        enable_ssl_verification: input.enableSslVerification,
        signing: input.signing,
        disabled: false,
        created_at: input.createdAt,
        updated_at: input.createdAt,
      };
      await col.insertOne(doc).catch(duplicate);
      return toRecord(doc);
    },
    async get(projectId, id) {
      const doc = await col.findOne({ _id: id, project_id: projectId });
      return doc ? toRecord(doc) : undefined;
    },
    async chat(projectId, kind) {
      const doc = await col.findOne({ project_id: projectId, unique_key: kind });
      return doc ? toRecord(doc) : undefined;
    },
    async list(projectId, kind) {
      const filter = kind ? { project_id: projectId, kind } : { project_id: projectId };
      return (await col.find(filter).sort({ _id: 1 }).toArray()).map(toRecord);
    },
    async all() {
      return (await col.find({}).sort({ _id: 1 }).toArray()).map(toRecord);
    },
    async update(projectId, id, patch, ifUpdatedAt) {
      const doc = await col.findOneAndUpdate(
        { _id: id, project_id: projectId, ...(ifUpdatedAt ? { updated_at: ifUpdatedAt } : {}) },
        { $set: patchColumns(patch) },
        { returnDocument: "after" },
      );
      return doc ? toRecord(doc) : undefined;
    },
    async delete(projectId, id) {
      return (await col.deleteOne({ _id: id, project_id: projectId })).deletedCount > 0;
    },
    async ping() {
      await db.command({ ping: 1 });
    },
  };
}
