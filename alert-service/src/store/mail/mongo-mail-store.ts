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

/**
 * MailStore on MongoDB (or FerretDB 1.x). Slot claims of one project are serialised in this
 * process (FerretDB's update operators are not atomic, see docs/architecture.md); the slot and
 * delivery documents are keyed by `_id`, so a repeated claim or record finds the first one. A
 * crash between the window update and the slot insert loses one rank of the window (the next
 * notification skips it), never a notification.
 */
export async function createMongoMailStore(db: Db): Promise<MailStore> {
  const windows = db.collection<WindowDoc>("mail_windows");
  const slots = db.collection<SlotDoc>("mail_slots");
  const deliveries = db.collection<DeliveryDoc>("mail_deliveries");
  await slots.createIndex({ project_id: 1, window_start: 1, seq: 1 }, { name: "project_window_seq" });
  const locks = new KeyedLock<number>();
  const toSlot = (doc: SlotDoc): StormSlot => ({ windowStart: new Date(doc.window_start), seq: doc.seq });
  return {
    claimSlot(projectId, key, at, windowMs) {
      return locks.run(projectId, async () => {
        const held = await slots.findOne({ _id: key });
        if (held) return toSlot(held);
        const atMs = at.getTime();
        const win = await windows.findOne({ _id: projectId });
        const open = win !== null && atMs < win.start_ms + windowMs;
        const doc: SlotDoc = {
          _id: key,
          project_id: projectId,
          window_start: open ? win.start_ms : atMs,
          seq: open ? win.count + 1 : 1,
        };
        await windows.updateOne({ _id: projectId }, { $set: { start_ms: doc.window_start, count: doc.seq } }, { upsert: true });
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
