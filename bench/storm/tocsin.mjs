// bench/storm.mjs helper: Tocsin as users run it — the four services from their builds, one
// process each (bench/alert-system.mjs), at the default LOG_LEVEL (info; the services' stdout goes
// to a log file, not to this process), seeded over REST (bench/alert-seed.mjs). Variants:
//   local  embedded default: SQLite stores, in-process SQLite queue (no REDIS_URL);
//   redis  BullMQ on a private redis-server with `--appendonly yes --appendfsync always`, so a 202
//          still means "on disk";
//   mongo  FerretDB (SQLite backend) for the stores + the same BullMQ/Redis;
//   silenced  the embedded default with `silences` active silences in the loaded project (issue 24).
import { rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@tocsin/grpc";
import { alertV1 } from "@tocsin/proto";
import * as L from "../alert-load.mjs";
import { seed, smoke } from "../alert-seed.mjs";
import { startFerretDb, startSystem } from "../alert-system.mjs";
import { addSilences } from "./silences.mjs";

/** Lifts the per-integration webhook budget (default 6,000/min) so that the load is not 429'd. */
async function unlimit(url, s) {
  const base = `/api/v4/projects/${s.projectId}/alert_management`;
  await L.http(url, "PUT", `${base}/http_integrations/${s.plain.id}`, s.token, { rate_limit_per_minute: 0 });
  await L.http(url, "PUT", `${base}/prometheus_integration`, s.token, { active: true, rate_limit_per_minute: 0 });
  const probeBase = `/api/v4/projects/${s.probeProjectId}/alert_management`;
  await L.http(url, "PUT", `${probeBase}/http_integrations/${s.probe.id}`, s.token, { rate_limit_per_minute: 0 });
}

/**
 * Starts one Tocsin variant ("local", "redis", "mongo" or "silenced"); `cpuProfDir` runs the gateway and
 * alert-service under --cpu-prof. Resolves to `{ name, url, seed, grpc, pids, logBytes(), stop() }`.
 */
export async function startTocsin(variant, { cpuProfDir, silences = 1000 } = {}) {
  const queue = variant === "local" || variant === "silenced" ? "local" : "redis";
  const logFile = join(tmpdir(), `tocsin-storm-${variant}-${process.pid}-${Date.now()}.log`);
  const ferret = variant === "mongo" ? await startFerretDb() : null;
  // The gateway's profile is named; alert-service's are not, so that its processing thread writes
  // its own (CPU.<date>.<time>.<pid>.<thread id>.<seq>.cpuprofile: thread 0 is the main thread).
  const prof = (name) =>
    cpuProfDir
      ? [
          "--cpu-prof",
          `--cpu-prof-dir=${join(cpuProfDir, variant)}`,
          ...(name === "alert" ? [] : [`--cpu-prof-name=${name}.cpuprofile`]),
        ]
      : [];
  // ALERT_PROCESSING_THREAD=false in the bench's environment: processing on the accepting event loop (before/after);
  // INGEST_BACKLOG_LIMIT (0: no request held) and INGEST_BACKLOG_WAIT_MS likewise, for the backlog bound's before/after.
  const passed = ["ALERT_PROCESSING_THREAD", "INGEST_BACKLOG_LIMIT", "INGEST_BACKLOG_WAIT_MS"].filter((k) => process.env[k]);
  const env = {
    LOG_LEVEL: "info",
    ...Object.fromEntries(passed.map((k) => [k, process.env[k]])),
    ...(ferret ? { MONGO_URL: ferret.url } : {}),
  };
  let sys;
  try {
    sys = await startSystem({
      queue,
      env,
      logFile,
      redisAof: true,
      nodeArgs: { gateway: prof("gateway"), alert: prof("alert") },
    });
  } catch (err) {
    await ferret?.stop();
    rmSync(logFile, { force: true });
    throw err;
  }
  const grpc = createClient(alertV1.AlertServiceService, { target: "alert", address: sys.alertAddr, timeoutMs: 5000 });
  const stop = async () => {
    grpc.close?.();
    await sys.stop();
    await ferret?.stop();
    rmSync(logFile, { force: true });
  };
  try {
    const s = await seed(sys.url);
    if (!s.prometheus?.url) throw new Error(`no Prometheus integration: ${s.prometheus?.error}`);
    await unlimit(sys.url, s);
    await smoke(sys.url, s);
    if (variant === "silenced") await addSilences(sys.url, s, silences);
    const pids = { ...sys.procs, ...(ferret ? { ferretdb: ferret.pid } : {}) };
    const logBytes = () => {
      try {
        return statSync(logFile).size;
      } catch {
        return 0;
      }
    };
    return { name: `Tocsin ${variant}`, variant, url: sys.url, seed: s, grpc, pids, logBytes, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/**
 * Alerts listed in the loaded project (X-Total of its alert list). A list call can fail while a
 * large backlog is processed (503 past its deadline, seen on FerretDB): it is asked again, 10 times.
 */
export async function listed(t) {
  for (let i = 0; ; i++) {
    try {
      return (await L.countAlerts(t.url, t.seed.token, t.seed.projectId)).total;
    } catch (err) {
      if (i >= 9) throw err;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

/**
 * Waits until the queue is empty (GetIngestStats pending = 0) and the project lists `expected`
 * alerts (bounded by `limitMs`). Resolves to the ms it took, or null when the bound was hit.
 */
export async function waitProcessed(t, expected, limitMs, t0 = performance.now()) {
  const until = t0 + limitMs;
  while (performance.now() < until) {
    const s = await t.grpc.getIngestStats({}, { requestId: "storm-drain" }).catch(() => null);
    if (s && s.pending === 0 && (await listed(t)) >= expected) return Math.round(performance.now() - t0);
    await new Promise((r) => setTimeout(r, s && s.pending > 0 ? 50 : 100));
  }
  return null;
}
