// bench/storm.mjs helper: the measured phases. A target is `{ name, pids, single, batch,
// settle?(expected, t0) }` where `single`/`batch` say where and what wrk posts; `settle`
// (Tocsin only) waits until what was accepted is processed and listed.
import { performance } from "node:perf_hooks";
import * as L from "../alert-load.mjs";
import { paced } from "../alert-paced.mjs";
import { perItem, withCpu } from "./measure.mjs";
import { listed, waitProcessed } from "./tocsin.mjs";
import { wrk } from "./wrk.mjs";

const log = (...a) => console.log(`[${new Date().toISOString().slice(11, 19)}]`, ...a);

/**
 * One wrk round against `target` ("single" or "batch" spec), CPU measured over the round and,
 * for Tocsin, over the processing of what it accepted (so CPU per alert covers both).
 */
export async function round(target, kind, { connections, seconds, drainLimitMs, label = kind }) {
  const spec = target[kind];
  const before = target.settle ? await target.count() : 0;
  const heldBefore = (await target.held?.()) ?? null;
  const logBefore = target.logBytes?.() ?? 0;
  const t0 = performance.now();
  const { result, cpuS, machinePct, busiest } = await withCpu(target.pids, async () => {
    const w = await wrk({ ...spec, connections, seconds });
    const backlog = target.backlog ? await target.backlog() : null;
    const heldAfter = (await target.held?.()) ?? null;
    const held =
      heldBefore && heldAfter
        ? {
            requests: heldAfter.held - heldBefore.held,
            meanMs: Math.round((heldAfter.heldMs - heldBefore.heldMs) / Math.max(1, heldAfter.held - heldBefore.held)),
            overdue: heldAfter.overdue - heldBefore.overdue,
          }
        : null;
    const processedMs = target.settle ? await target.settle(before + w.alerts, drainLimitMs, t0) : null;
    return { ...w, processedMs, backlog, held };
  });
  const out = {
    ...result,
    machinePct,
    busiest,
    cpuMsPerAlert: perItem(cpuS, result.alerts),
    processedPerSec: result.processedMs ? Math.round((1000 * result.alerts) / result.processedMs) : null,
    // What processing had not caught up with when the load stopped, as a share of what was accepted.
    backlogPct: result.backlog === null ? null : Math.round((1000 * result.backlog) / Math.max(1, result.alerts)) / 10,
    logBytesPerAlert: target.logBytes ? Math.round((target.logBytes() - logBefore) / Math.max(1, result.alerts)) : undefined,
  };
  const proc = target.settle
    ? `, processed in ${out.processedMs ?? "NOT DRAINED"} ms (${out.processedPerSec}/s), backlog at the end ${out.backlog} (${out.backlogPct} %)` +
      (out.held ? `, held ${out.held.requests} requests (mean ${out.held.meanMs} ms, ${out.held.overdue} overdue)` : "")
    : "";
  log(
    `${label} ${target.name}: ${out.rps} posts/s = ${out.alertsPerSec} alerts/s, p50 ${out.p50} p99 ${out.p99} ms, non-2xx ${out.non2xx}, errors ${out.errors}${proc}; cpu ms/alert`,
    out.cpuMsPerAlert,
  );
  return out;
}

/**
 * Open-loop paced load of single posts to Tocsin at `rate`/s for `seconds` s, with queue depth
 * sampled every second (GetIngestStats), the accept → visible probe on the probe project, and the
 * drain after the load stops. Also the CPU per alert (accepted and processed) of each process.
 */
export async function pacedPhase(t, rate, seconds, drainLimitMs) {
  const s = t.seed;
  const before = await listed(t);
  const sampler = L.sampleIngest(t.grpc, 1000, seconds + drainLimitMs / 1000 + 10);
  const probe = L.visibleProbe({
    url: t.url,
    token: s.token,
    projectId: s.probeProjectId,
    webhookUrl: s.probe.url,
    webhookToken: s.probe.token,
  });
  const t0 = performance.now();
  let loadMs = 0;
  let drainMs = null;
  const { result, cpuS } = await withCpu(t.pids, async () => {
    const r = await paced(L.pacedLoad(s.plain.url, s.plain.token, L.FLAT_BODY, rate, seconds));
    loadMs = performance.now() - t0;
    drainMs = await waitProcessed(t, before + r.ok, drainLimitMs, performance.now());
    return r;
  });
  const probeOut = await probe.stop();
  const samples = await sampler.stop();
  const during = samples.filter((x) => x.t <= loadMs);
  const lat = probeOut.latencies.sort((a, b) => a - b);
  const out = {
    offered: rate,
    seconds,
    accepted: result.rps,
    ok: result.ok,
    dropped: result.dropped,
    statuses: result.statuses,
    p50: result.p50,
    p99: result.p99,
    max: result.max,
    lagP99: result.lagP99,
    depthMax: Math.max(0, ...during.map((x) => x.pending)),
    depthSeries: during.map((x) => x.pending),
    drainMs,
    visible: {
      sent: probeOut.sent,
      seen: probeOut.seen,
      lost: probeOut.lost,
      p50: Math.round(L.quantile(lat, 0.5)),
      p99: Math.round(L.quantile(lat, 0.99)),
    },
    cpuMsPerAlert: perItem(cpuS, result.ok),
  };
  out.depthSeconds = Math.round((100 * out.depthMax) / rate) / 100;
  log(
    `paced ${t.name} at ${rate}/s for ${seconds} s: accepted ${out.accepted}/s p99 ${out.p99} ms; depth max ${out.depthMax} (${out.depthSeconds} s of traffic); visible p99 ${out.visible.p99} ms (${out.visible.seen}/${out.visible.sent}, lost ${out.visible.lost}); drain ${drainMs ?? "NOT DRAINED"} ms`,
  );
  return out;
}

/** The same paced load against the baseline (accept p99 at the same rate), with its CPU per request. */
export async function pacedBaseline(baseline, rate, seconds) {
  const { result, cpuS } = await withCpu(baseline.pids, () =>
    paced(L.pacedLoad(baseline.single.url, "x", L.FLAT_BODY, rate, seconds)),
  );
  log(`paced baseline at ${rate}/s: ${result.rps}/s p99 ${result.p99} ms`);
  return { offered: rate, accepted: result.rps, p50: result.p50, p99: result.p99, cpuMsPerAlert: perItem(cpuS, result.ok) };
}

/** `n` concurrent posts of one fingerprint: one alert with `events` = n. */
export async function correctness(t, n = 200) {
  const fp = `storm-fp-${Date.now()}`;
  const body = JSON.stringify({ title: fp, fingerprint: fp, severity: "low" });
  const post = () =>
    fetch(t.seed.plain.url, {
      method: "POST",
      headers: { authorization: `Bearer ${t.seed.plain.token}`, "content-type": "application/json" },
      body,
      signal: AbortSignal.timeout(30_000),
    }).then(
      async (r) => {
        await r.arrayBuffer();
        return r.status;
      },
      () => 0,
    );
  const statuses = await Promise.all(Array.from({ length: n }, post));
  const accepted = statuses.filter((x) => x === 202).length;
  let found = { total: 0, first: undefined };
  await waitProcessed(t, 0, 120_000);
  for (let i = 0; i < 300; i++) {
    // A list call may fail while a backlog is processed (503 past its deadline): ask again.
    found = await L.countAlerts(t.url, t.seed.token, t.seed.projectId, fp).catch(() => found);
    if (found.first?.events >= accepted) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const ok = accepted === n && found.total === 1 && found.first?.events === n;
  log(
    `correctness ${t.name}: ${n} concurrent posts of one fingerprint → ${found.total} alert(s), events ${found.first?.events}: ${ok ? "ok" : "WRONG"}`,
  );
  return { posts: n, accepted, alerts: found.total, events: found.first?.events ?? null, ok };
}
