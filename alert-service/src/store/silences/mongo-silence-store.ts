import { alreadyExists } from "@tocsin/core";
import { isDuplicateKey } from "@tocsin/store";
import type { Collection, Db } from "mongodb";
import type { Silence } from "../../domain/silences/model.js";
import type { SilenceStore } from "../../domain/silences/ports.js";
import { matchersFromText, matchersToText } from "./codec.js";

interface Doc {
  /** The silence id: a bare string `_id`, the one filter FerretDB serves without decoding the collection. */
  _id: string;
  project_id: number;
  matchers: string;
  starts_at: Date;
  ends_at: Date;
  created_by: string;
  comment: string;
  updated_at: Date;
}

function toSilence(doc: Doc): Silence {
  return {
    id: doc._id,
    projectId: doc.project_id,
    matchers: matchersFromText(doc.matchers),
    startsAt: doc.starts_at,
    endsAt: doc.ends_at,
    createdBy: doc.created_by,
    comment: doc.comment,
    updatedAt: doc.updated_at,
  };
}

function toDoc(s: Silence): Doc {
  return {
    _id: s.id,
    project_id: s.projectId,
    matchers: matchersToText(s.matchers),
    starts_at: s.startsAt,
    ends_at: s.endsAt,
    created_by: s.createdBy,
    comment: s.comment,
    updated_at: s.updatedAt,
  };
}

/**
 * Silences in MongoDB: `silences`, one document per silence under its id. A silence has one
 * writer at a time in practice (its maintainers); two concurrent writes of one silence are
 * last-writer-wins, as in Alertmanager.
 */
export async function createMongoSilenceStore(db: Db): Promise<SilenceStore> {
  const col: Collection<Doc> = db.collection<Doc>("silences");
  // One document per silenced alert under the alert id as a string `_id`: the first hold of an
  // alert is an insert (FerretDB checks it in a real index), later ones replace it.
  const marks = db.collection<{ _id: string; silence_ids: string[]; updated_at: Date }>("alert_silenced_by");
  await col.createIndex({ project_id: 1, ends_at: 1 }, { name: "project_ends" });
  return {
    async insert(silence) {
      await col.insertOne(toDoc(silence)).catch((err: unknown) => {
        if (isDuplicateKey(err)) throw alreadyExists("SILENCE_EXISTS", "Silence already exists");
        throw err;
      });
    },
    async get(projectId, id) {
      const doc = await col.findOne({ _id: id });
      return doc && doc.project_id === projectId ? toSilence(doc) : undefined;
    },
    async list(projectId, opts = {}) {
      const filter = opts.endsAfter ? { project_id: projectId, ends_at: { $gt: opts.endsAfter } } : { project_id: projectId };
      const docs = await col.find(filter).toArray();
      return docs.map(toSilence).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    },
    async update(silence) {
      const current = await col.findOne({ _id: silence.id });
      if (!current || current.project_id !== silence.projectId) return false;
      const { _id, ...fields } = toDoc(silence);
      await col.updateOne({ _id }, { $set: fields });
      return true;
    },
    async markSilenced(alertId, silenceIds, at) {
      const _id = String(alertId);
      if (silenceIds.length === 0) {
        await marks.deleteOne({ _id });
        return;
      }
      const doc = { _id, silence_ids: silenceIds, updated_at: at };
      try {
        await marks.insertOne(doc);
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
        await marks.replaceOne({ _id }, doc);
      }
    },
    async alertsHeldBy(silenceId) {
      return (await marks.find({ silence_ids: silenceId }).toArray()).map((doc) => Number(doc._id));
    },
    async silencedBy(alertIds) {
      const found = new Map<number, string[]>();
      if (alertIds.length === 0) return found;
      const docs = await marks.find({ _id: { $in: alertIds.map(String) } }).toArray();
      for (const doc of docs) found.set(Number(doc._id), doc.silence_ids);
      return found;
    },
    async ping() {
      await db.command({ ping: 1 });
    },
  };
}
