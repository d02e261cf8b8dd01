import { AppError } from "@tocsin/core";
import { createClient } from "@tocsin/grpc";
import { oncallV1 } from "@tocsin/proto";
import type { Tracing } from "@tocsin/telemetry";
import type { PolicyRule, PolicySnapshot } from "../domain/paging/model.js";
import type { OncallDirectory } from "../domain/paging/ports.js";

const toUser = (u: oncallV1.OncallUser) => ({ id: u.id, username: u.username });

function toRule(r: oncallV1.EscalationRule): PolicyRule {
  return {
    status: r.status === "resolved" ? "resolved" : "acknowledged",
    elapsedSeconds: r.elapsedTimeSeconds,
    ...(r.oncallScheduleIid ? { schedule: { iid: r.oncallScheduleIid, name: r.oncallScheduleName } } : {}),
    ...(r.user && !r.oncallScheduleIid ? { user: toUser(r.user) } : {}),
  };
}

function toPolicy(p: oncallV1.EscalationPolicy): PolicySnapshot {
  return {
    id: p.id,
    name: p.name,
    rules: p.rules.map(toRule),
    repeatEverySeconds: p.repeatEverySeconds > 0 ? p.repeatEverySeconds : null,
    maxRepeats: p.maxRepeats,
  };
}

/** OncallDirectory over settings-service's OncallService (internal calls: no principal). Returns the client's close too. */
export function createOncallDirectory(address: string, tracing?: Tracing): OncallDirectory & { close(): void } {
  const client = createClient(oncallV1.OncallServiceService, {
    target: "settings",
    address,
    timeoutMs: 5000,
    ...(tracing ? { tracing } : {}),
  });
  return {
    async policy(projectId, ctx) {
      const { policy } = await client.getProjectEscalationPolicy({ projectId }, ctx);
      return policy ? toPolicy(policy) : undefined;
    },
    async oncall(projectId, scheduleIid, at, ctx) {
      try {
        const { oncall } = await client.resolveScheduleOncall({ projectId, scheduleIid, at }, ctx);
        return { users: (oncall?.users ?? []).map(toUser), skipped: (oncall?.skipped ?? []).map(toUser) };
      } catch (err) {
        if (AppError.is(err) && err.code === "NOT_FOUND") return undefined;
        throw err;
      }
    },
    close: () => client.close(),
  };
}
