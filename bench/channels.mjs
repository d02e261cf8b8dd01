#!/usr/bin/env node
// Chat and webhook delivery benchmark (issue 23). See bench/README.md, section "Chat and webhooks".
//
// Usage: npm run build && node bench/channels.mjs [options]
//   --queue local|redis   the alert and channel queues: in-process (default) or BullMQ on a private redis-server
//   --deliveries N        part 1: alerts posted to a project with --hooks hooks (default 1000)
//   --hooks N             part 1: hooks of that project, each its own lane (default 4)
//   --alerts N            part 2: alerts of the storm (default 10000)
//   --concurrency N       part 2: concurrent posters (default 20)
//   --rounds N            part 2: ABBA rounds of (off, on, on, off) runs, medians reported (default 1)
//   --only delivery|storm run one part
// Part 1 measures delivery: messages per second from the first to the last arrival at a local
// receiver, end to end (webhook → processing → channels reactor → channel queue → signed POST),
// with storm control lifted and no pacing; then, in the same run, Prometheus Alertmanager
// delivering as many alerts to as many webhooks of the same receiver (the ratio is reported). Part 2 posts the same storm of distinct alerts to a
// project without channels and to one with Slack, Mattermost, Teams and a hook all on (default
// storm control and pacing), in ABBA order: intake rates with and without channels, and how many
// messages each destination got within the window (the storm limit is 30; one summary follows at
// the window's end, not waited for).
import { createServer } from "node:http";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { ADMIN_TOKEN, cpuSeconds, rest, startSystem, until } from "./alert-system.mjs";
import { median } from "./lib/stats.mjs";
import { notifyEachAlertConfig, postEachAlert, startAlertmanager } from "./storm/alertmanager.mjs";

const { values: opt } = parseArgs({
  options: {
    queue: { type: "string", default: "local" },
    deliveries: { type: "string", default: "1000" },
    hooks: { type: "string", default: "4" },
    alerts: { type: "string", default: "10000" },
    concurrency: { type: "string", default: "20" },
    rounds: { type: "string", default: "1" },
    only: { type: "string" },
  },
});
const log = (...a) => console.log(`[${new Date().toISOString().slice(11, 19)}]`, ...a);

/** A local receiver that counts what arrives per path (bodies are not kept). */
async function startReceiver() {
  const counts = new Map();
  let first = 0;
  let last = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      counts.set(req.url, (counts.get(req.url) ?? 0) + 1);
      last = performance.now();
      first ||= last;
      res.end("ok");
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    count: (path) => counts.get(path) ?? 0,
    total: () => [...counts.values()].reduce((a, b) => a + b, 0),
    span: () => ({ first, last }),
    reset: () => {
      counts.clear();
      first = 0;
      last = 0;
    },
    close: () => new Promise((r) => server.close(r)),
  };
}

const call = (url, method, path, token, body) => rest(url, method, path, { body, token });

/** A project with an HTTP integration and the given destinations (paths on the receiver). */
async function seedProject(sys, rx, name, { hooks = 0, chat = false }) {
  const project = await call(sys.url, "POST", "/api/v4/projects", ADMIN_TOKEN, { name, path: name }).then((r) => r.json);
  const api = `/api/v4/projects/${project.id}`;
  const integration = await call(sys.url, "POST", `${api}/alert_management/http_integrations`, ADMIN_TOKEN, {
    name: "Bench",
    active: true,
  }).then((r) => r.json);
  const paths = [];
  for (let i = 0; i < hooks; i++) {
    paths.push(`/${name}/hook-${i}`);
    await call(sys.url, "POST", `${api}/hooks`, ADMIN_TOKEN, { url: `${rx.url}/${name}/hook-${i}` });
  }
  if (chat)
    for (const kind of ["slack", "mattermost", "microsoft-teams"]) {
      paths.push(`/${name}/${kind}`);
      await call(sys.url, "PUT", `${api}/integrations/${kind}`, ADMIN_TOKEN, { webhook: `${rx.url}/${name}/${kind}` });
    }
  const total = async () =>
    Number((await call(sys.url, "GET", `${api}/alert_management/alerts?per_page=1`, ADMIN_TOKEN)).headers.get("x-total"));
  return { project, path: new URL(integration.url).pathname, key: integration.token, total, paths };
}

/** Posts `n` distinct alerts with `concurrency` posters; times acceptance, then processing. */
async function storm(sys, p, n, concurrency, tag) {
  let next = 0;
  let refused = 0;
  const cpu0 = Object.fromEntries(Object.entries(sys.procs).map(([k, pid]) => [k, cpuSeconds(pid)]));
  const t0 = performance.now();
  const poster = async () => {
    for (let i = next++; i < n; i = next++) {
      const res = await fetch(`${sys.url}${p.path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${p.key}`, "content-type": "application/json" },
        body: JSON.stringify({ title: `${tag} ${i}`, fingerprint: `${tag}-${i}`, severity: "high" }),
      });
      await res.text();
      if (res.status !== 202) refused++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, poster));
  const accepted = (performance.now() - t0) / 1000;
  await until(async () => (await p.total()) >= n - refused, 30 * 60_000, `${tag}: ${n} alerts processed`);
  const processed = (performance.now() - t0) / 1000;
  const cpuMsPerAlert = Object.fromEntries(
    Object.entries(sys.procs).map(([k, pid]) => [k, Math.round((1e6 * (cpuSeconds(pid) - cpu0[k])) / n) / 1000]),
  );
  return { n, refused, acceptPerS: n / accepted, processPerS: n / processed, cpuMsPerAlert };
}

async function partDelivery(rx) {
  const n = Number(opt.deliveries);
  const hooks = Number(opt.hooks);
  const sys = await startSystem({
    queue: opt.queue,
    env: { OUTBOUND_ALLOW_LOCAL_NETWORK: "true", CHANNEL_STORM_LIMIT: "1000000", CHANNEL_MIN_INTERVAL_MS: "0" },
  });
  try {
    const p = await seedProject(sys, rx, "deliver", { hooks });
    rx.reset();
    log(`part 1: ${n} alerts × ${hooks} hooks = ${n * hooks} messages (${opt.queue} queue)`);
    await storm(sys, p, n, 5, "deliver");
    await until(() => rx.total() >= n * hooks, 30 * 60_000, "part 1 messages");
    const { first, last } = rx.span();
    const span = (last - first) / 1000;
    const result = { messages: n * hooks, hooks, spanS: span, messagesPerS: (n * hooks - 1) / span };
    log("part 1:", JSON.stringify(result));
    return result;
  } finally {
    await sys.stop();
  }
}

/**
 * Part 1's baseline, in the same run: Prometheus Alertmanager delivering the same number of alerts
 * to the same receiver, each alert notified on its own at once (`group_wait: 0s`) through
 * `--hooks` webhook integrations of one receiver; posted one alert per request by 5 posters as
 * Tocsin's are. Figure: messages/s from the first to the last arrival.
 */
async function partDeliveryBaseline(rx) {
  const n = Number(opt.deliveries);
  const hooks = Number(opt.hooks);
  const webhooks = Array.from({ length: hooks }, (_, i) => `      - url: ${rx.url}/am/hook-${i}\n        send_resolved: false`);
  const am = await startAlertmanager({ config: notifyEachAlertConfig(0, `    webhook_configs:\n${webhooks.join("\n")}`) });
  try {
    rx.reset();
    log(`part 1 baseline: Alertmanager ${am.version}, ${n} alerts × ${hooks} webhooks`);
    await postEachAlert(am.url, n, 5, (i) => ({ labels: { alertname: `deliver-${i}`, severity: "high" } }));
    await until(() => rx.total() >= n * hooks, 30 * 60_000, "part 1 baseline messages");
    const { first, last } = rx.span();
    const span = (last - first) / 1000;
    const result = { alertmanager: am.version, messages: n * hooks, spanS: span, messagesPerS: (n * hooks - 1) / span };
    log("part 1 baseline:", JSON.stringify(result));
    return result;
  } finally {
    await am.stop();
  }
}

async function partStorm(rx) {
  const n = Number(opt.alerts);
  const concurrency = Number(opt.concurrency);
  const rounds = Number(opt.rounds);
  const sys = await startSystem({ queue: opt.queue, env: { OUTBOUND_ALLOW_LOCAL_NETWORK: "true" } });
  try {
    const rows = { off: [], on: [] };
    const loud = [];
    const order = Array.from({ length: rounds }, () => ["off", "on", "on", "off"]).flat();
    for (const [k, mode] of order.entries()) {
      const p = await seedProject(sys, rx, `storm${k}`, mode === "on" ? { hooks: 1, chat: true } : {});
      if (mode === "on") loud.push(p);
      const row = await storm(sys, p, n, concurrency, `s${k}`);
      rows[mode].push(row);
      log(`part 2, run ${k + 1}/${order.length}, channels ${mode}:`, JSON.stringify(row));
    }
    // Each destination of a loud project gets 30 messages (paced at 1/s) before its window's end.
    await until(() => loud.every((p) => p.paths.every((path) => rx.count(path) >= 30)), 180_000, "storm messages");
    const med = (mode, key) => median(rows[mode].map((r) => r[key]));
    const totalCpu = (mode) => median(rows[mode].map((r) => Object.values(r.cpuMsPerAlert).reduce((a, b) => a + b, 0)));
    const result = {
      alerts: n,
      runs: order.length,
      allCpuMsPerAlert: { off: totalCpu("off"), on: totalCpu("on") },
      acceptPerS: { off: med("off", "acceptPerS"), on: med("on", "acceptPerS") },
      processPerS: { off: med("off", "processPerS"), on: med("on", "processPerS") },
      messagesPerDestination: loud.flatMap((p) => p.paths.map((path) => rx.count(path))),
      limitPerDestination: 30,
    };
    result.acceptSlowdownPct = (100 * (result.acceptPerS.off - result.acceptPerS.on)) / result.acceptPerS.off;
    result.processSlowdownPct = (100 * (result.processPerS.off - result.processPerS.on)) / result.processPerS.off;
    log("part 2:", JSON.stringify(result));
    return result;
  } finally {
    await sys.stop();
  }
}

const rx = await startReceiver();
try {
  const delivery = opt.only === "storm" ? undefined : await partDelivery(rx);
  const baseline = opt.only === "storm" ? undefined : await partDeliveryBaseline(rx);
  if (delivery && baseline) delivery.ratioToAlertmanager = delivery.messagesPerS / baseline.messagesPerS;
  const stormResult = opt.only === "delivery" ? undefined : await partStorm(rx);
  console.log(JSON.stringify({ queue: opt.queue, delivery, baseline, storm: stormResult }, null, 2));
} finally {
  await rx.close();
}
