// Alert intake benchmark helper: REST calls, autocannon runs, the ingest-stats sampler, the
// accept → visible probe and the Alertmanager batch timer. Every loop is bounded in count and time;
// every target is 127.0.0.1.
import { performance } from "node:perf_hooks";
import autocannon from "autocannon";
import { sleep } from "./alert-system.mjs";

/** One REST call; throws on a status >= 300. Resolves to `{ status, headers, json }`. */
export async function http(url, method, path, token, body, extraHeaders = {}) {
  const headers = { "PRIVATE-TOKEN": token, "content-type": "application/json", ...extraHeaders };
  const res = await fetch(`${url}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(15_000),
  });
  const text = await res.text();
  const json = text ? JSON.parse(text) : null;
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
  return { status: res.status, headers: res.headers, json };
}

/** Number of alerts of a project (X-Total of the alerts list), optionally matching `search`. */
export async function countAlerts(url, token, projectId, search) {
  const q = search ? `&search=${encodeURIComponent(search)}` : "";
  const { headers, json } = await http(url, "GET", `/api/v4/projects/${projectId}/alert_management/alerts?per_page=1${q}`, token);
  return { total: Number(headers.get("x-total") ?? 0), first: json?.[0] };
}

/** An autocannon run; resolves to its result object. */
export function cannon(opts) {
  return new Promise((resolve, reject) => {
    autocannon({ timeout: 10, ...opts }, (err, result) => (err ? reject(err) : resolve(result)));
  });
}

export const summarize = (r) => ({
  rps: Math.round(r.requests.average),
  p50: r.latency.p50,
  p99: r.latency.p99,
  max: r.latency.max,
  n2xx: r["2xx"],
  errors: r.errors + r.non2xx + r.timeouts,
});

let bodySeq = 0;

/** A function returning `template` with each `[<id>]` replaced by a value unique in this process. */
export function bodyGenerator(template) {
  const run = (Date.now() % 1e8).toString(36);
  const [head, ...rest] = template.split("[<id>]");
  return rest.length === 0 ? () => template : () => head + rest.map((part) => `${run}-${++bodySeq}${part}`).join("");
}

/** Options of `paced()` (bench/alert-paced.mjs) for alert posts to a webhook URL. */
export function pacedLoad(webhookUrl, token, bodyTemplate, rate, seconds) {
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  return { url: webhookUrl, headers, body: bodyGenerator(bodyTemplate), rate, seconds };
}

/**
 * autocannon options for alert posts to a webhook URL. Every `[<id>]` in the template is replaced
 * by a fresh counter value per request, so that every alert is distinct. (autocannon's own
 * `idReplacement` sends a wrong Content-Length with this version, hence `setupRequest`.)
 */
export function webhookLoad(webhookUrl, token, bodyTemplate, extra = {}) {
  const body = bodyGenerator(bodyTemplate);
  return {
    url: webhookUrl,
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    requests: [{ setupRequest: (req) => ({ ...req, body: body() }) }],
    ...extra,
  };
}

/** Flat alert of PRODUCT.md / spec 2.2 (no fingerprint: Premium groups by payload). */
export const FLAT_BODY = JSON.stringify({
  title: "bench [<id>]",
  description: "CPU above 90% on the web tier",
  severity: "high",
  service: "web",
  monitoring_tool: "bench",
  hosts: ["web-1", "web-2"],
});

/** The same facts in a Datadog-like nested shape, for the custom mapping comparison. */
export const NESTED_BODY = JSON.stringify({
  alert: { name: "bench [<id>]", text: "CPU above 90% on the web tier", priority: "high" },
  source: { service: "web", tool: "bench", hosts: ["web-1", "web-2"] },
});
export const NESTED_MAPPING = [
  { field_name: "title", path: ["alert", "name"], type: "string" },
  { field_name: "description", path: ["alert", "text"], type: "string" },
  { field_name: "severity", path: ["alert", "priority"], type: "string" },
  { field_name: "service", path: ["source", "service"], type: "string" },
  { field_name: "monitoring_tool", path: ["source", "tool"], type: "string" },
  { field_name: "hosts", path: ["source", "hosts"], type: "array" },
];

/**
 * Samples GetIngestStats every `everyMs` until stopped (at most `maxSamples`).
 * `stop()` resolves to the samples `[{ t, pending, processed, failed }]` (t = ms since start).
 */
export function sampleIngest(client, everyMs = 1000, maxSamples = 2000) {
  const samples = [];
  const t0 = performance.now();
  let running = true;
  const loop = (async () => {
    while (running && samples.length < maxSamples) {
      const s = await client.getIngestStats({}, { requestId: "bench-sampler" }).catch(() => null);
      if (s)
        samples.push({ t: Math.round(performance.now() - t0), pending: s.pending, processed: s.processed, failed: s.failed });
      await sleep(everyMs);
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return samples;
    },
  };
}

/** Polls GetIngestStats until pending = 0 (bounded); resolves to the ms it took, or null. */
export async function waitDrained(client, limitMs = 180_000, everyMs = 100) {
  const t0 = performance.now();
  for (let i = 0; i < Math.ceil(limitMs / everyMs); i++) {
    const s = await client.getIngestStats({}, { requestId: "bench-drain" }).catch(() => null);
    if (s && s.pending === 0) return Math.round(performance.now() - t0);
    await sleep(everyMs);
  }
  return null;
}

/**
 * Accept → visible probe: every `everyMs`, posts one alert with a unique title (a common tag plus
 * a number); one poller lists the newest alerts matching the tag (`search=<tag>`, 100 per page)
 * every `pollMs` and notes when each probe first appears. So the probe adds ~1/`pollMs` list
 * calls per second whatever the backlog (one call per probe would pile up when the system lags).
 * A probe not listed within `limitMs` of its 202 is lost. Runs until stopped; `stop()` resolves
 * to `{ sent, seen, lost, failed, latencies }` (ms, from the 202 to the first poll that lists it).
 */
export function visibleProbe({
  url,
  token,
  projectId,
  webhookUrl,
  webhookToken,
  everyMs = 100,
  pollMs = 50,
  limitMs = 15_000,
  maxProbes = 10_000,
}) {
  const tag = `probe${Date.now().toString(36)}x`;
  const acceptedAt = new Map(); // title → time of its 202
  const latencies = [];
  let sent = 0;
  let failed = 0;
  let lost = 0;
  let posting = true;
  let postsDone = false;
  const post = async (title) => {
    const res = await fetch(webhookUrl, {
      method: "POST",
      headers: { authorization: `Bearer ${webhookToken}`, "content-type": "application/json" },
      body: JSON.stringify({ title, severity: "low", monitoring_tool: "probe" }),
      signal: AbortSignal.timeout(10_000),
    }).catch(() => null);
    await res?.arrayBuffer().catch(() => null);
    if (res?.status === 202) acceptedAt.set(title, performance.now());
    else failed += 1;
  };
  const posts = [];
  const sender = (async () => {
    while (posting && sent < maxProbes) {
      posts.push(post(`${tag}${sent++}`));
      await sleep(everyMs);
    }
    await Promise.all(posts);
    postsDone = true;
  })();
  const path = `/api/v4/projects/${projectId}/alert_management/alerts?search=${tag}&per_page=100&order_by=created_at&sort=desc`;
  const poller = (async () => {
    for (let i = 0; i < 100_000; i++) {
      const listed = await http(url, "GET", path, token).then(
        (r) => r.json,
        () => [],
      );
      const now = performance.now();
      for (const alert of listed) {
        const at = acceptedAt.get(alert.title);
        if (at === undefined) continue;
        latencies.push(now - at);
        acceptedAt.delete(alert.title);
      }
      for (const [title, at] of acceptedAt) {
        if (now - at <= limitMs) continue;
        lost += 1;
        acceptedAt.delete(title);
      }
      if (postsDone && acceptedAt.size === 0) break;
      await sleep(pollMs);
    }
  })();
  return {
    stop: async () => {
      posting = false;
      await sender;
      await poller;
      return { sent, seen: latencies.length, lost, failed, latencies };
    },
  };
}

/** An Alertmanager webhook body with `n` firing alerts, distinct per `batch`. */
export function alertmanagerBatch(n, batch) {
  const alerts = Array.from({ length: n }, (_, i) => ({
    status: "firing",
    labels: { alertname: `BenchAlert${i}`, batch: String(batch), instance: `web-${i % 10}:9100`, severity: "critical" },
    annotations: { summary: `bench batch ${batch} alert ${i}`, description: "CPU above 90%" },
    startsAt: new Date().toISOString(),
    endsAt: "0001-01-01T00:00:00Z",
    generatorURL: "http://prometheus.local/graph?g0.expr=up",
    fingerprint: `${batch.toString(16)}x${i.toString(16)}`,
  }));
  return {
    version: "4",
    groupKey: `{}:{batch="${batch}"}`,
    truncatedAlerts: 0,
    status: "firing",
    receiver: "tocsin",
    groupLabels: { batch: String(batch) },
    commonLabels: { severity: "critical" },
    commonAnnotations: {},
    externalURL: "http://alertmanager.local",
    alerts,
  };
}

/** Posts `runs` 100-alert batches one after another; resolves to the sorted times (ms) and statuses. */
export async function timeBatches(webhookUrl, token, { warmup = 5, runs = 30, size = 100 } = {}) {
  const times = [];
  const statuses = {};
  for (let i = 0; i < warmup + runs; i++) {
    const body = JSON.stringify(alertmanagerBatch(size, i + 1));
    const t0 = performance.now();
    const res = await fetch(webhookUrl, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body,
      signal: AbortSignal.timeout(10_000),
    });
    await res.arrayBuffer();
    const ms = performance.now() - t0;
    if (i >= warmup) {
      times.push(ms);
      statuses[res.status] = (statuses[res.status] ?? 0) + 1;
    }
  }
  return { times: times.sort((a, b) => a - b), statuses, bytes: JSON.stringify(alertmanagerBatch(size, 1)).length };
}

/** Quantile of a sorted array (nearest rank). */
export const quantile = (sorted, q) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] : Number.NaN;
