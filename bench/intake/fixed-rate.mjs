// bench/alert-intake.mjs helper: the paced phases — a fixed offered rate with ingest sampling and
// the accept → visible probe, and the memory soak (RSS of gateway and alert-service). `ctx` as in
// ./throughput.mjs.
import { performance } from "node:perf_hooks";
import * as L from "../alert-load.mjs";
import { paced } from "../alert-paced.mjs";
import { rssMiB, sleep } from "../alert-system.mjs";
import { waitQuiet, withCpu } from "./measure.mjs";

const log = (...a) => console.log(`[${new Date().toISOString().slice(11, 19)}]`, ...a);

/** Fixed offered rate with ingest sampling and the accept → visible probe; then the drain. */
export async function fixedRatePhase(ctx, rate, seconds) {
  const idleBefore = await waitQuiet(`fixed ${rate}/s`, ctx.quietWaitS);
  const before = (await L.countAlerts(ctx.url, ctx.token, ctx.projectId)).total;
  const sampler = L.sampleIngest(ctx.grpc, 1000, seconds + 200);
  const probe = L.visibleProbe({
    url: ctx.url,
    token: ctx.token,
    projectId: ctx.probeProjectId,
    webhookUrl: ctx.probe.url,
    webhookToken: ctx.probe.token,
  });
  const t0 = performance.now();
  const load = L.pacedLoad(ctx.plain.url, ctx.plain.token, L.FLAT_BODY, rate, seconds);
  const { result, cpu, perReq } = await withCpu(
    ctx.pids,
    () => paced(load),
    (r) => r.ok,
  );
  const loadMs = performance.now() - t0;
  const probeDone = probe.stop(); // posts no more; its last alerts are still polled for
  const drainMs = await L.waitDrained(ctx.grpc);
  const probeOut = await probeDone;
  const samples = await sampler.stop();
  const stored = (await L.countAlerts(ctx.url, ctx.token, ctx.projectId)).total - before;
  const lat = probeOut.latencies.sort((a, b) => a - b);
  const during = samples.filter((s) => s.t <= loadMs);
  const procRate = (a, b) => (b && a && b.t > a.t ? Math.round((1000 * (b.processed - a.processed)) / (b.t - a.t)) : null);
  const out = {
    idleBefore,
    cpu,
    perReq,
    offered: rate,
    seconds,
    accepted: result.rps,
    p50: result.p50,
    p90: result.p90,
    p99: result.p99,
    max: result.max,
    statuses: result.statuses,
    dropped: result.dropped,
    lagP99: result.lagP99,
    pendingMax: Math.max(0, ...during.map((s) => s.pending)),
    pendingAtStop: during.at(-1)?.pending ?? null,
    processedRpsDuringLoad: procRate(during[1], during.at(-1)),
    drainMs,
    stored,
    storedRps: Math.round((1000 * stored) / (loadMs + (drainMs ?? 0))),
    pendingSeries: during.map((s) => s.pending),
    visible: {
      sent: probeOut.sent,
      seen: probeOut.seen,
      lost: probeOut.lost,
      failed: probeOut.failed,
      p50: L.quantile(lat, 0.5),
      p99: L.quantile(lat, 0.99),
      max: lat.at(-1),
    },
  };
  log(
    `fixed ${rate}/s: accepted ${out.accepted}/s p99 ${out.p99} ms; pending max ${out.pendingMax}; drain ${out.drainMs} ms; visible p99 ${out.visible.p99?.toFixed(0)} ms`,
  );
  return out;
}

/** RSS of gateway and alert-service every 5 s during a soak at the fixed rate. */
export async function soakPhase(ctx, rate) {
  const { cfg } = ctx;
  if (cfg.soak <= 0) return { skipped: "--soak 0" };
  await waitQuiet("soak", ctx.quietWaitS);
  const series = { gateway: [], alert: [] };
  const sample = () => {
    for (const k of Object.keys(series)) series[k].push(Math.round(rssMiB(ctx.pids[k]) ?? 0));
  };
  sample();
  const timer = setInterval(sample, 5000);
  const load = L.pacedLoad(ctx.plain.url, ctx.plain.token, L.FLAT_BODY, rate, cfg.soak);
  const { result, cpu, perReq } = await withCpu(
    ctx.pids,
    () => paced(load),
    (r) => r.ok,
  );
  clearInterval(timer);
  sample();
  const drainMs = await L.waitDrained(ctx.grpc);
  await sleep(5000);
  sample();
  const stat = (xs) => ({
    start: xs[0],
    end: xs.at(-2),
    afterDrain: xs.at(-1),
    max: Math.max(...xs),
    min: Math.min(...xs),
    series: xs,
  });
  const out = {
    seconds: cfg.soak,
    offered: rate,
    accepted: result.rps,
    p99: result.p99,
    statuses: result.statuses,
    drainMs,
    cpu,
    perReq,
    gateway: stat(series.gateway),
    alert: stat(series.alert),
  };
  log(
    `soak ${cfg.soak} s at ${rate}/s: gateway RSS ${out.gateway.start}→${out.gateway.end} (max ${out.gateway.max}) MiB; alert-service ${out.alert.start}→${out.alert.end} (max ${out.alert.max}) MiB`,
  );
  return out;
}
