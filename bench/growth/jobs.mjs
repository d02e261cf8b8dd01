// bench/growth.mjs helper: the jobs the processing use-case is given — new alerts, and the mixed
// workload of new alerts with repeats and resolves of them — all of project 1.
import { createHash } from "node:crypto";
import { uuidV7 } from "./service.mjs";

/**
 * Job makers for `fingerprints` ("random" or "ordered", `--fingerprints`): `{ newJobs(tag, n),
 * mixedJobs(tag, n) }`, each job of its own id.
 */
export function jobMaker(fingerprints) {
  /**
   * The stored fingerprint of a name: its SHA-1, as monitors send them (each new alert's key lands
   * on a leaf of its own of the fingerprint index), or with `--fingerprints ordered` a key that
   * sorts in the order names are first seen (new keys append to the index: what the random ones
   * cost, priced).
   */
  const firstSeen = new Map();
  function storedFingerprint(name) {
    if (fingerprints === "random") return createHash("sha1").update(name).digest("hex");
    if (!firstSeen.has(name)) firstSeen.set(name, firstSeen.size);
    return `fp${String(firstSeen.get(name)).padStart(14, "0")}`;
  }

  /** A job of project 1 for `fingerprint`; a recovery when `resolve`. */
  function jobOf(fingerprint, resolve = false) {
    const title = `growth ${fingerprint}`;
    const id = uuidV7();
    const now = new Date().toISOString();
    return {
      jobId: id,
      requestId: id,
      projectId: 1,
      integrationId: 7,
      alert: {
        title,
        description: "CPU above 90% on the web tier",
        service: "web",
        monitoringTool: "growth",
        hosts: ["web-1"],
        severity: "high",
        startedAt: now,
        ...(resolve ? { endedAt: now } : {}),
        fingerprint: storedFingerprint(fingerprint),
        source: "growth",
        payload: { title, fingerprint },
      },
    };
  }

  const newJobs = (tag, n) => Array.from({ length: n }, (_, i) => jobOf(`${tag}-${i}`));
  /** Half new alerts, half repeats and resolves of them: per 4 jobs new a, repeat a, new b, resolve a. */
  function mixedJobs(tag, n) {
    const out = [];
    for (let i = 0; out.length < n; i++) {
      const a = `${tag}-${i}-a`;
      out.push(jobOf(a), jobOf(a), jobOf(`${tag}-${i}-b`), jobOf(a, true));
    }
    return out.slice(0, n);
  }

  return { newJobs, mixedJobs };
}
