// bench/alert-intake.mjs helper: the max-throughput phases — the bare node:http baseline, the
// accept run against the plain webhook (with the drain of what it queued), and the custom mapping's
// cost in alternating pairs. `ctx`: the seeded system (alert-seed.mjs's integrations, `url`,
// `grpc`, `pids`) with the run's `cfg` and `quietWaitS`.
import { performance } from "node:perf_hooks";
import * as L from "../alert-load.mjs";
import { paced } from "../alert-paced.mjs";
import { startBaselineProcess } from "../alert-system.mjs";
import { median } from "../lib/stats.mjs";
import { maxRuns, waitQuiet, withCpu } from "./measure.mjs";

const log = (...a) => console.log(`[${new Date().toISOString().slice(11, 19)}]`, ...a);

/** The bare node:http server (bench/baseline.mjs, own process): max throughput, then at `--rate`. */
export async function baselinePhase(ctx) {
  const { cfg } = ctx;
  const baseline = await startBaselineProcess();
  try {
    const body = L.FLAT_BODY;
    const idleBefore = await waitQuiet("baseline", ctx.quietWaitS);
    const load = L.webhookLoad(`${baseline.url}/alerts/notify/x/y.json`, "x", body, { connections: cfg.connections });
    const { result, cpu, perReq } = await withCpu(
      { baseline: baseline.pid },
      () => maxRuns(load, cfg),
      (r) => r.done,
    );
    const atRate = await paced(
      L.pacedLoad(`${baseline.url}/alerts/notify/x/y.json`, "x", body, cfg.rate, Math.min(cfg.rateDuration, 10)),
    );
    log(`baseline: ${result.rps} req/s p99 ${result.p99} ms; at ${cfg.rate}/s p99 ${atRate.p99} ms; cpu`, cpu);
    return { ...result, cpu, perReq, idleBefore, atRate };
  } finally {
    await baseline.stop();
  }
}

/** Max-throughput accept run against one webhook, then the drain of what it queued. */
export async function acceptPhase(ctx, name, webhook, body) {
  const idleBefore = await waitQuiet(name, ctx.quietWaitS);
  const before = (await L.countAlerts(ctx.url, ctx.token, ctx.projectId)).total;
  const t0 = performance.now();
  let loadMs = 0;
  // The CPU window covers the drain too, so that alert-service's cost per alert includes processing.
  const { result, cpu, perReq } = await withCpu(
    ctx.pids,
    async () => {
      const r = await maxRuns(L.webhookLoad(webhook.url, webhook.token, body, { connections: ctx.cfg.connections }), ctx.cfg);
      loadMs = performance.now() - t0;
      return { ...r, drainMs: await L.waitDrained(ctx.grpc) };
    },
    (r) => r.done,
  );
  const stored = (await L.countAlerts(ctx.url, ctx.token, ctx.projectId)).total - before;
  const processedRps = Math.round((1000 * stored) / (loadMs + (result.drainMs ?? 0)));
  log(
    `${name}: ${result.rps} req/s p99 ${result.p99} ms, errors ${result.errors}; drained in ${result.drainMs} ms; ${stored} stored (${processedRps}/s incl. drain); cpu %`,
    cpu,
    "cpu ms/alert",
    perReq,
  );
  return { ...result, stored, processedRps, cpu, perReq, idleBefore };
}

/**
 * Custom mapping cost: the same nested body to the plain and to the mapped integration, in
 * alternating pairs (A B, B A, ...) so that drifting machine load hits both alike; medians of
 * req/s and of the CPU ms per alert of gateway + alert-service + redis (processing included).
 */
export async function mappingPhase(ctx) {
  const { cfg } = ctx;
  const pairs = Math.max(2, cfg.runs);
  const sides = { plain: { rps: [], cpu: [], gateway: [], alert: [] }, mapped: { rps: [], cpu: [], gateway: [], alert: [] } };
  await waitQuiet("mapping", ctx.quietWaitS);
  for (let i = 0; i < pairs; i++) {
    for (const side of i % 2 === 0 ? ["plain", "mapped"] : ["mapped", "plain"]) {
      const hook = side === "plain" ? ctx.plain : ctx.mapped;
      const load = L.webhookLoad(hook.url, hook.token, L.NESTED_BODY, { connections: cfg.connections, duration: cfg.duration });
      const { result, perReq } = await withCpu(
        ctx.pids,
        async () => ({ ...L.summarize(await L.cannon(load)), drainMs: await L.waitDrained(ctx.grpc) }),
        (r) => r.n2xx,
      );
      sides[side].rps.push(result.rps);
      sides[side].cpu.push(Math.round((perReq.gateway + perReq.alert + (perReq.redis ?? 0)) * 100) / 100);
      sides[side].gateway.push(perReq.gateway);
      sides[side].alert.push(perReq.alert);
    }
  }
  const m = (side) => ({
    rps: median(sides[side].rps),
    cpuMsPerAlert: median(sides[side].cpu),
    gatewayMs: median(sides[side].gateway),
    alertMs: median(sides[side].alert),
    runs: sides[side],
  });
  const out = { pairs, plain: m("plain"), mapped: m("mapped") };
  out.rpsCost = 1 - out.mapped.rps / out.plain.rps;
  out.cpuCost = out.mapped.cpuMsPerAlert / out.plain.cpuMsPerAlert - 1;
  log(
    `mapping: plain ${out.plain.rps} req/s ${out.plain.cpuMsPerAlert} cpu-ms/alert; mapped ${out.mapped.rps} req/s ${out.mapped.cpuMsPerAlert} cpu-ms/alert`,
    sides,
  );
  return out;
}
