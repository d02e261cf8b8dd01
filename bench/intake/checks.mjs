// bench/alert-intake.mjs helper: the checks beside the load — N posts of one fingerprint leave one
// alert with events = N, the alerts list of the loaded project, and Alertmanager-shaped batches.
// `ctx` as in ./throughput.mjs.
import { performance } from "node:perf_hooks";
import * as L from "../alert-load.mjs";
import { median } from "../lib/stats.mjs";

const log = (...a) => console.log(`[${new Date().toISOString().slice(11, 19)}]`, ...a);

/** Same N alerts of one fingerprint, 20 at a time: one alert with events = N. */
export async function correctness(ctx, n = 200) {
  const fp = `bench-fp-${Date.now()}`;
  const body = JSON.stringify({ title: fp, fingerprint: fp, severity: "low" });
  const r = await L.cannon({ ...L.webhookLoad(ctx.plain.url, ctx.plain.token, body, {}), connections: 20, amount: n });
  await L.waitDrained(ctx.grpc, 60_000);
  const { total, first } = await L.countAlerts(ctx.url, ctx.token, ctx.projectId, fp);
  const ok = r["2xx"] === n && total === 1 && first?.events === n;
  log(`correctness: ${n} posts of one fingerprint → ${total} alert(s), events ${first?.events}: ${ok ? "ok" : "WRONG"}`);
  return { posts: n, accepted: r["2xx"], alerts: total, events: first?.events ?? null, ok };
}

/** Time of the alerts list of the loaded project (median of 10), plain and with `search`. */
export async function listPhase(ctx) {
  const time = async (query) => {
    const times = [];
    for (let i = 0; i < 10; i++) {
      const t0 = performance.now();
      await L.http(ctx.url, "GET", `/api/v4/projects/${ctx.projectId}/alert_management/alerts${query}`, ctx.token);
      times.push(performance.now() - t0);
    }
    return Math.round(median(times) * 10) / 10;
  };
  const alerts = (await L.countAlerts(ctx.url, ctx.token, ctx.projectId)).total;
  const r = { alerts, plainMs: await time(""), searchMs: await time("?search=no-such-alert") };
  log(`alerts list of a project with ${alerts} alerts: ${r.plainMs} ms; with search: ${r.searchMs} ms (median of 10)`);
  return r;
}

/** 100-alert Alertmanager batches, sequential: accept time. */
export async function prometheusPhase(ctx) {
  if (!ctx.prometheus?.url) return { skipped: ctx.prometheus?.error ?? "no prometheus integration" };
  const out = await L.timeBatches(ctx.prometheus.url, ctx.prometheus.token);
  const drainMs = await L.waitDrained(ctx.grpc);
  const r = {
    batch: 100,
    bytes: out.bytes,
    statuses: out.statuses,
    p50: L.quantile(out.times, 0.5),
    p99: L.quantile(out.times, 0.99),
    max: out.times.at(-1),
    drainMs,
  };
  log("prometheus 100-alert batch:", r);
  return r;
}
