import { isDuplicateKey, MongoSequences } from "@tocsin/store";
import type { Collection, Db } from "mongodb";
import type { DeliveryLog, DeliveryRecord, DeliveryStatus } from "../../domain/channels/ports.js";

interface Doc {
  _id: number;
  key: string;
  project_id: number;
  destination_id: number;
  event_type: string;
  event_id: string;
  alert_id: number;
  status: string;
  attempts: number;
  response_status: number | null;
  duration_ms: number;
  error: string | null;
  not_before: Date | null;
  created_at: Date;
  updated_at: Date;
}

const SEQUENCE_ID = "channel_delivery_id";

function toRecord(d: Doc): DeliveryRecord {
  return {
    id: d._id,
    key: d.key,
    projectId: d.project_id,
    destinationId: d.destination_id,
    eventType: d.event_type,
    eventId: d.event_id,
    alertId: d.alert_id,
    status: d.status as DeliveryStatus,
    attempts: d.attempts,
    responseStatus: d.response_status,
    durationMs: d.duration_ms,
    error: d.error,
    notBefore: d.not_before,
    createdAt: d.created_at,
    updatedAt: d.updated_at,
  };
}

/** The delivery log in MongoDB: `channel_deliveries` (unique key) and a `counters` sequence. */
export async function createMongoDeliveryLog(db: Db): Promise<DeliveryLog> {
  const col: Collection<Doc> = db.collection<Doc>("channel_deliveries");
  await col.createIndex({ key: 1 }, { unique: true, name: "key" });
  await col.createIndex({ destination_id: 1, created_at: 1 }, { name: "destination_created" });
  const sequences = new MongoSequences(db);
  return {
    async open(d) {
      const existing = await col.findOne({ key: d.key });
      if (existing) return toRecord(existing);
      const doc: Doc = {
        _id: await sequences.reserveBlock(SEQUENCE_ID, 1),
        key: d.key,
        project_id: d.projectId,
        destination_id: d.destinationId,
        event_type: d.eventType,
        event_id: d.eventId,
        alert_id: d.alertId,
        status: "retrying",
        attempts: 0,
        response_status: null,
        duration_ms: 0,
        error: null,
        not_before: null,
        created_at: d.createdAt,
        updated_at: d.createdAt,
      };
      try {
        await col.insertOne(doc);
        return toRecord(doc);
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
        // Another run opened it first: the one stored is the delivery.
        return toRecord((await col.findOne({ key: d.key })) as Doc);
      }
    },
    async record(id, o) {
      await col.updateOne(
        { _id: id },
        {
          $set: {
            status: o.status,
            attempts: o.attempts,
            response_status: o.responseStatus,
            duration_ms: o.durationMs,
            error: o.error,
            not_before: o.notBefore,
            updated_at: o.at,
          },
        },
      );
    },
    async get(projectId, id) {
      const doc = await col.findOne({ _id: id, project_id: projectId });
      return doc ? toRecord(doc) : undefined;
    },
    async list(destinationId, since, limit) {
      const docs = await col
        .find({ destination_id: destinationId, created_at: { $gte: since }, status: { $ne: "summarized" } })
        .sort({ _id: -1 })
        .limit(limit)
        .toArray();
      return docs.map(toRecord);
    },
    async rank(destinationId, from, to, upToId) {
      return col.countDocuments({
        destination_id: destinationId,
        created_at: { $gte: from, $lt: to },
        _id: { $lte: upToId },
        event_type: { $ne: "summary" },
      });
    },
    async summarized(destinationId, from, to) {
      return col.countDocuments({ destination_id: destinationId, created_at: { $gte: from, $lt: to }, status: "summarized" });
    },
    async purge(before) {
      await col.deleteMany({ created_at: { $lt: before } });
    },
  };
}
