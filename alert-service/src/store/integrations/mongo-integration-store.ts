import { alreadyExists } from "@tocsin/core";
import { isDuplicateKey, MongoSequences } from "@tocsin/store";
import type { Collection, Db } from "mongodb";
import type { IntegrationStore } from "../../domain/integrations/ports.js";
import type { IntegrationPatch, IntegrationRecord, IntegrationType, NewIntegration } from "../../domain/integrations/types.js";
import { mappingFromText, mappingToText, uniqueKeyOf } from "./codec.js";

interface Doc {
  _id: number;
  project_id: number;
  type: string;
  name: string;
  unique_key: string;
  active: boolean;
  // JSON text: sample payloads may have keys MongoDB refuses (`$x`, `a.b`).
  payload_example: string;
  mapping: string | null;
  api_url: string;
  /** Absent on documents written before the field existed. */
  rate_limit_per_minute?: number | null;
  token_last_used_at?: Date | null;
  auto_resolve_minutes?: number | null;
  created_at: Date;
  updated_at: Date;
}

const SEQUENCE_ID = "integration_id";

function toRecord(doc: Doc): IntegrationRecord {
  return {
    id: doc._id,
    projectId: doc.project_id,
    type: doc.type as IntegrationType,
    name: doc.name,
    active: doc.active,
    payloadExample: doc.payload_example,
    mapping: mappingFromText(doc.mapping),
    apiUrl: doc.api_url,
    rateLimitPerMinute: doc.rate_limit_per_minute ?? null,
    tokenLastUsedAt: doc.token_last_used_at ?? null,
    autoResolveMinutes: doc.auto_resolve_minutes ?? null,
    createdAt: doc.created_at,
    updatedAt: doc.updated_at,
  };
}

function duplicate(err: unknown): never {
  if (isDuplicateKey(err)) throw alreadyExists("INTEGRATION_EXISTS", "Integration already exists");
  throw err;
}

/** Integrations in MongoDB: `integrations` (unique project_id + unique_key) and a `counters` sequence. */
export async function createMongoIntegrationStore(db: Db): Promise<IntegrationStore> {
  const col: Collection<Doc> = db.collection<Doc>("integrations");
  await col.createIndex({ project_id: 1, unique_key: 1 }, { unique: true, name: "project_unique_key" });
  await col.createIndex({ project_id: 1, type: 1 }, { name: "project_type" });

  const sequences = new MongoSequences(db);
  // Owned once its claim is inserted: FerretDB's unlocked $inc can give two replicas one number.
  const nextId = () => sequences.reserveBlock(SEQUENCE_ID, 1);

  return {
    async insert(input: NewIntegration) {
      const doc: Doc = {
        _id: await nextId(),
        project_id: input.projectId,
        type: input.type,
        name: input.name,
        unique_key: uniqueKeyOf(input.type, input.name),
        active: input.active,
        payload_example: input.payloadExample,
        mapping: mappingToText(input.mapping),
        api_url: input.apiUrl,
        rate_limit_per_minute: input.rateLimitPerMinute,
        auto_resolve_minutes: input.autoResolveMinutes,
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
    async list(projectId) {
      return (await col.find({ project_id: projectId }).sort({ _id: 1 }).toArray()).map(toRecord);
    },
    async findSingleton(projectId, type) {
      const doc = await col.findOne({ project_id: projectId, type }, { sort: { _id: 1 } });
      return doc ? toRecord(doc) : undefined;
    },
    async update(projectId, id, patch: IntegrationPatch) {
      const $set: Partial<Doc> = { updated_at: patch.at };
      if (patch.name !== undefined) {
        const current = await col.findOne({ _id: id, project_id: projectId });
        if (!current) return undefined;
        $set.name = patch.name;
        $set.unique_key = uniqueKeyOf(current.type as IntegrationType, patch.name);
      }
      if (patch.active !== undefined) $set.active = patch.active;
      if (patch.payloadExample !== undefined) $set.payload_example = patch.payloadExample;
      if (patch.mapping !== undefined) $set.mapping = mappingToText(patch.mapping);
      if (patch.apiUrl !== undefined) $set.api_url = patch.apiUrl;
      if (patch.rateLimitPerMinute !== undefined) $set.rate_limit_per_minute = patch.rateLimitPerMinute;
      if (patch.autoResolveMinutes !== undefined) $set.auto_resolve_minutes = patch.autoResolveMinutes;
      const res = await col.updateOne({ _id: id, project_id: projectId }, { $set }).catch(duplicate);
      if (res.matchedCount === 0) return undefined;
      const doc = await col.findOne({ _id: id, project_id: projectId });
      return doc ? toRecord(doc) : undefined;
    },
    async touch(projectId, id, at) {
      await col.updateOne(
        { _id: id, project_id: projectId, $or: [{ token_last_used_at: null }, { token_last_used_at: { $lt: at } }] },
        { $set: { token_last_used_at: at } },
      );
    },
    async delete(projectId, id) {
      return (await col.deleteOne({ _id: id, project_id: projectId })).deletedCount > 0;
    },
    async ping() {
      await db.command({ ping: 1 });
    },
    async close() {
      // The client is shared with the rest of alert-service and closed by its owner.
    },
  };
}
