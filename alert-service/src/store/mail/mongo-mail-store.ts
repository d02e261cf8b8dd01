import { KeyedLock } from "@tocsin/core";
import { isDuplicateKey } from "@tocsin/store";
import type { Db } from "mongodb";
import type { MailStore, StormSlot } from "../../domain/mail/ports.js";

interface WindowDoc {
  _id: number;
  start_ms: number;
  count: number;
}

interface SlotDoc {
  _id: string;
  project_id: number;
  window_start: number;
  seq: number;
}

interface DeliveryDoc {
  _id: string;
  message_id: string;
  delivered_at: Date;
}

interface WindowClaimDoc {
  /** `<project>:first`, or `<project>:after:<start of the previous window>`. */
  _id: string;
  start_ms: number;
}

/**
 * MailStore on MongoDB (or FerretDB 1.x). Correct with several alert-service replicas on any
 * MongoDB-protocol store, because the contended steps are inserts under a unique `_id` (FerretDB
 * applies updates as unlocked read-modify-writes, see docs/architecture.md): a project's next
 * window is the one whose claim (`mail_window_claims`, keyed by the window before it) was
 * inserted first, and a rank in a window is owned by inserting `<project>:<window>:<rank>` into
 * `mail_ranks`. `mail_windows` (the project's latest window and count) is only a hint where to
 * start looking; a stale hint costs retries, never a shared rank. Claims of one project are also
 * serialised in this process. The slot and delivery documents are keyed by `_id`, so a repeated
 * claim or record finds the first one. A crash between the rank insert and the slot insert loses
 * one rank of the window (the next notification skips it), never a notification.
 */
export async function createMongoMailStore(db: Db): Promise<MailStore> {
  const windows = db.collection<WindowDoc>("mail_windows");
  const windowClaims = db.collection<WindowClaimDoc>("mail_window_claims");
  const ranks = db.collection<{ _id: string }>("mail_ranks");
  const slots = db.collection<SlotDoc>("mail_slots");
  const deliveries = db.collection<DeliveryDoc>("mail_deliveries");
  await slots.createIndex({ project_id: 1, window_start: 1, seq: 1 }, { name: "project_window_seq" });
  const locks = new KeyedLock<number>();
  const toSlot = (doc: SlotDoc): StormSlot => ({ windowStart: new Date(doc.window_start), seq: doc.seq });

  /** The start of the project's window open at `atMs`, opening one when none is. */
  const windowAt = async (projectId: number, atMs: number, windowMs: number, hint: WindowDoc | null) => {
    if (hint && atMs < hint.start_ms + windowMs) return hint.start_ms;
    let previous = hint?.start_ms;
    for (let step = 0; step < 100_000; step++) {
      const _id = previous === undefined ? `${projectId}:first` : `${projectId}:after:${previous}`;
      try {
        await windowClaims.insertOne({ _id, start_ms: atMs });
        return atMs;
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
      }
      const next = await windowClaims.findOne({ _id });
      if (!next) throw new Error(`mail window claim ${_id} vanished`);
      if (atMs < next.start_ms + windowMs) return next.start_ms;
      previous = next.start_ms;
    }
    throw new Error(`mail windows of project ${projectId}: no open window found`);
  };

  return {
    claimSlot(projectId, key, at, windowMs) {
      return locks.run(projectId, async () => {
        const held = await slots.findOne({ _id: key });
        if (held) return toSlot(held);
        const hint = await windows.findOne({ _id: projectId });
        const start = await windowAt(projectId, at.getTime(), windowMs, hint);
        let seq = (hint?.start_ms === start ? hint.count : 0) + 1;
        for (; ; seq++) {
          try {
            await ranks.insertOne({ _id: `${projectId}:${start}:${seq}` });
            break;
          } catch (err) {
            if (!isDuplicateKey(err)) throw err;
          }
        }
        const hintNow = { $set: { start_ms: start, count: seq } };
        // Two replicas creating the hint at once: FerretDB does not retry the upsert that lost (the
        // document exists now), so update it; a hint, it needs no more than that.
        await windows.updateOne({ _id: projectId }, hintNow, { upsert: true }).catch((err: unknown) => {
          if (!isDuplicateKey(err)) throw err;
          return windows.updateOne({ _id: projectId }, hintNow);
        });
        const doc: SlotDoc = { _id: key, project_id: projectId, window_start: start, seq };
        try {
          await slots.insertOne(doc);
        } catch (err) {
          if (!isDuplicateKey(err)) throw err;
          const first = await slots.findOne({ _id: key });
          if (first) return toSlot(first);
          throw err;
        }
        return toSlot(doc);
      });
    },
    async overflow(projectId, windowStart, limit) {
      const docs = await slots
        .find({ project_id: projectId, window_start: windowStart.getTime(), seq: { $gt: limit } })
        .toArray();
      return docs.sort((a, b) => a.seq - b.seq).map((d) => d._id);
    },
    async delivered(key) {
      return (await deliveries.findOne({ _id: key }, { projection: { _id: 1 } })) !== null;
    },
    async recordDelivery(key, messageId, at) {
      try {
        await deliveries.insertOne({ _id: key, message_id: messageId, delivered_at: at });
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
      }
    },
  };
}
