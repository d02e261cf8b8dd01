// The process-alert job of a storm's `i`-th distinct alert, as the lane workers hand it to
// `processAlertJobs`: a normalized ~150-byte alert with a fingerprint of its own (SHA-1 of its
// title, as the intake makes it), or `fingerprint` when given. Shared by the benches that drive
// processing without the queue (sqlite-processing.mjs, wal-frames.mjs).
import { createHash } from "node:crypto";

/** `id`: the job id, which is also its request id (time-ordered UUIDs from the gateway, or a caller's own). */
export function stormJob(tag, i, id, fingerprint) {
  const title = `storm ${tag}-${i}`;
  const payload = {
    title,
    description: "CPU above 90% on the web tier",
    severity: "high",
    service: "web",
    monitoring_tool: "storm",
  };
  return {
    jobId: id,
    requestId: id,
    projectId: 1,
    integrationId: 7,
    alert: {
      title,
      description: payload.description,
      service: "web",
      monitoringTool: "storm",
      hosts: [],
      severity: "high",
      startedAt: new Date().toISOString(),
      fingerprint: fingerprint ?? createHash("sha1").update(title).digest("hex"),
      source: "storm",
      payload,
    },
  };
}
