import { isDuplicateKey } from "@tocsin/store";
import type { Db } from "mongodb";
import type { Escalation, PageStep, PolicySnapshot } from "../../domain/paging/model.js";
import type { EscalationStore } from "../../domain/paging/ports.js";

interface EscalationDoc {
  _id: number;
  trigger_op: string;
  triggered_at: Date;
  policy: PolicySnapshot | null;
}

interface StepDoc {
  _id: string;
  alert_id: number;
  trigger_op: string;
  rule: number;
  round: number;
  users: Array<{ id: number; username: string }>;
  stopped: boolean;
  at: Date;
}

const toEscalation = (d: EscalationDoc): Escalation => ({
  alertId: d._id,
  triggerOp: d.trigger_op,
  triggeredAt: d.triggered_at,
  policy: d.policy,
});

const toStep = (d: StepDoc): PageStep => ({
  key: d._id,
  alertId: d.alert_id,
  triggerOp: d.trigger_op,
  rule: d.rule,
  round: d.round,
  users: d.users,
  stopped: d.stopped,
  at: d.at,
});

/**
 * EscalationStore on MongoDB (or FerretDB 1.x). An escalation is written only by its alert's lane
 * (one writer at a time), so the replace is a plain upsert; a step is an insert under its key,
 * so two runs of one rule job record it once.
 */
export async function createMongoEscalationStore(db: Db): Promise<EscalationStore> {
  const escalations = db.collection<EscalationDoc>("escalations");
  const steps = db.collection<StepDoc>("page_steps");
  await steps.createIndex({ alert_id: 1, at: 1 }, { name: "alert_at" });
  return {
    async start(e) {
      const held = await escalations.findOne({ _id: e.alertId });
      if (held && (held.trigger_op === e.triggerOp || held.triggered_at > e.triggeredAt)) return toEscalation(held);
      const doc = { trigger_op: e.triggerOp, triggered_at: e.triggeredAt, policy: e.policy };
      await escalations.updateOne({ _id: e.alertId }, { $set: doc }, { upsert: true }).catch((err: unknown) => {
        if (!isDuplicateKey(err)) throw err;
        return escalations.updateOne({ _id: e.alertId }, { $set: doc });
      });
      return { ...e };
    },
    async get(alertId) {
      const doc = await escalations.findOne({ _id: alertId });
      return doc ? toEscalation(doc) : undefined;
    },
    async recordStep(s) {
      try {
        await steps.insertOne({
          _id: s.key,
          alert_id: s.alertId,
          trigger_op: s.triggerOp,
          rule: s.rule,
          round: s.round,
          users: s.users,
          stopped: s.stopped,
          at: s.at,
        });
        return s;
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
        const first = await steps.findOne({ _id: s.key });
        if (!first) throw err;
        return toStep(first);
      }
    },
    async getStep(key) {
      const doc = await steps.findOne({ _id: key });
      return doc ? toStep(doc) : undefined;
    },
    async steps(alertId) {
      const docs = await steps.find({ alert_id: alertId }).toArray();
      return docs.sort((a, b) => a.at.getTime() - b.at.getTime()).map(toStep);
    },
  };
}
