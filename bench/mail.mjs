#!/usr/bin/env node
// Alert e-mail benchmark (issue 10). See bench/README.md, section "Alert e-mails".
//
// Usage: npm run build && node bench/mail.mjs [options]
//   --queue local|redis   the alert and mail queues: in-process (default) or BullMQ on a private redis-server
//   --mails N             part 1: about N mails (alerts × recipients) to a local smtp-server (default 2000)
//   --recipients N        part 1: Maintainers of the project (default 20)
//   --alerts N            part 2: alerts of the storm (default 10000)
//   --concurrency N       part 2: concurrent posters (default 20)
//   --rounds N            part 2: ABBA rounds of (off, on, on, off) runs, medians reported (default 2)
//   --only delivery|storm run one part
// Part 1 measures delivery: mails per second from the first to the last arrival, end to end
// (webhook → processing → notify → one send job per recipient → nodemailer → smtp-server), with
// storm control lifted (MAIL_STORM_LIMIT=1000000). Part 2 posts the same storm of distinct alerts
// to projects with send_email off and on, in ABBA order, a fresh project each run: intake rate
// (accepted/s and processed/s, medians) with and without e-mail, and the mails each loud storm
// caused (default storm control: 30 per recipient, then one digest at the window's end).
// Every service runs in its own process from its build; every target is 127.0.0.1.
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { SMTPServer } from "smtp-server";
import { ADMIN_TOKEN, cpuSeconds, freePort, rest, startSystem, until } from "./alert-system.mjs";
import { median } from "./lib/stats.mjs";

const { values: opt } = parseArgs({
  options: {
    queue: { type: "string", default: "local" },
    mails: { type: "string", default: "2000" },
    recipients: { type: "string", default: "20" },
    alerts: { type: "string", default: "10000" },
    concurrency: { type: "string", default: "20" },
    rounds: { type: "string", default: "2" },
    only: { type: "string" },
  },
});
const log = (...a) => console.log(`[${new Date().toISOString().slice(11, 19)}]`, ...a);

/** A local smtp-server that counts what it accepted (subject lines only). */
async function startSink() {
  const port = await freePort();
  const subjects = [];
  let last = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    closeTimeout: 200,
    onData(stream, _session, callback) {
      let head = "";
      stream.on("data", (chunk) => {
        if (head.length < 4096) head += chunk.toString("utf8");
      });
      stream.on("end", () => {
        subjects.push(/^Subject: (.*)$/im.exec(head)?.[1] ?? "");
        last = performance.now();
        callback();
      });
    },
  });
  await new Promise((resolve) => server.listen(port, "127.0.0.1", resolve));
  return { url: `smtp://127.0.0.1:${port}`, subjects, lastAt: () => last, close: () => new Promise((r) => server.close(r)) };
}

const call = (url, method, path, token, body) => rest(url, method, path, { body, token });

/** A user owning a project with `maintainers` more members at level 40, and an HTTP integration. */
async function seedProject(sys, name, maintainers, sendEmail) {
  const admin = (m, p, b) => call(sys.url, m, `/api/v4${p}`, ADMIN_TOKEN, b).then((r) => r.json);
  const owner = await admin("POST", "/users", { username: `${name}-owner`, email: `${name}-owner@example.com`, name });
  const { token } = await admin("POST", `/users/${owner.id}/personal_access_tokens`, { name: "b", scopes: ["api"] });
  const project = await call(sys.url, "POST", "/api/v4/projects", token, { name, path: name }).then((r) => r.json);
  for (let i = 0; i < maintainers; i++) {
    const u = await admin("POST", "/users", { username: `${name}-m${i}`, email: `${name}-m${i}@example.com`, name: `m${i}` });
    await call(sys.url, "POST", `/api/v4/projects/${project.id}/members`, token, { user_id: u.id, access_level: 40 });
  }
  const mgmt = `/api/v4/projects/${project.id}/alert_management`;
  const integration = await call(sys.url, "POST", `${mgmt}/http_integrations`, token, { name: "Bench", active: true }).then(
    (r) => r.json,
  );
  await call(sys.url, "PUT", `${mgmt}/settings`, token, { send_email: sendEmail });
  const path = new URL(integration.url).pathname;
  const total = async () => Number((await call(sys.url, "GET", `${mgmt}/alerts?per_page=1`, token)).headers.get("x-total"));
  return { project, token, path, key: integration.token, total };
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
  // CPU ms per alert, per service process: what the work costs, which foreign load on the shared
  // machine disturbs much less than alerts/s.
  const cpuMsPerAlert = Object.fromEntries(
    Object.entries(sys.procs).map(([k, pid]) => [k, Math.round((1e6 * (cpuSeconds(pid) - cpu0[k])) / n) / 1000]),
  );
  return {
    n,
    refused,
    acceptPerS: n / accepted,
    processPerS: n / processed,
    acceptedS: accepted,
    processedS: processed,
    cpuMsPerAlert,
  };
}

async function partDelivery(sink) {
  const recipients = Number(opt.recipients);
  const alerts = Math.max(1, Math.round(Number(opt.mails) / (recipients + 1)));
  const sys = await startSystem({
    queue: opt.queue,
    env: { SMTP_URL: sink.url, MAIL_STORM_LIMIT: "1000000" },
  });
  try {
    const p = await seedProject(sys, "deliver", recipients, true);
    const expected = alerts * (recipients + 1);
    log(`part 1: ${alerts} alerts × ${recipients + 1} recipients = ${expected} mails (${opt.queue} queue)`);
    const before = sink.subjects.length;
    const t0 = performance.now();
    await storm(sys, p, alerts, 5, "deliver");
    let first = 0;
    await until(
      () => {
        if (!first && sink.subjects.length > before) first = performance.now();
        return sink.subjects.length - before >= expected;
      },
      30 * 60_000,
      "part 1 mails",
    );
    const span = (sink.lastAt() - first) / 1000;
    const result = { mails: expected, firstMailAfterS: (first - t0) / 1000, spanS: span, mailsPerS: (expected - 1) / span };
    log("part 1:", JSON.stringify(result));
    return result;
  } finally {
    await sys.stop();
  }
}

async function partStorm(sink) {
  const n = Number(opt.alerts);
  const concurrency = Number(opt.concurrency);
  const rounds = Number(opt.rounds);
  const sys = await startSystem({ queue: opt.queue, env: { SMTP_URL: sink.url } });
  try {
    const rows = { off: [], on: [] };
    const loudPaths = [];
    // ABBA order, `rounds` times, each run on a fresh project: drifting load hits both sides.
    const order = Array.from({ length: rounds }, () => ["off", "on", "on", "off"]).flat();
    for (const [k, mode] of order.entries()) {
      const p = await seedProject(sys, `storm${k}`, 2, mode === "on");
      if (mode === "on") loudPaths.push(p.project.path_with_namespace);
      const row = await storm(sys, p, n, concurrency, `s${k}`);
      rows[mode].push(row);
      log(`part 2, run ${k + 1}/${order.length}, send_email ${mode}:`, JSON.stringify(row));
    }
    const mailsOf = (path) => sink.subjects.filter((s) => s.startsWith(`${path} |`)).length;
    // Each loud project mails 30 alerts to each of its 3 recipients before its window's end.
    await until(() => loudPaths.every((path) => mailsOf(path) >= 90), 120_000, "storm mails");
    const med = (mode, key) => median(rows[mode].map((r) => r[key]));
    const cpu = (mode, proc) => median(rows[mode].map((r) => r.cpuMsPerAlert[proc] ?? 0));
    const totalCpu = (mode) => median(rows[mode].map((r) => Object.values(r.cpuMsPerAlert).reduce((a, b) => a + b, 0)));
    const result = {
      alerts: n,
      runs: order.length,
      alertCpuMsPerAlert: { off: cpu("off", "alert"), on: cpu("on", "alert") },
      allCpuMsPerAlert: { off: totalCpu("off"), on: totalCpu("on") },
      acceptPerS: { off: med("off", "acceptPerS"), on: med("on", "acceptPerS") },
      processPerS: { off: med("off", "processPerS"), on: med("on", "processPerS") },
      mailsPerLoudProject: loudPaths.map(mailsOf),
      limitPerLoudProject: 90,
    };
    result.acceptSlowdownPct = (100 * (result.acceptPerS.off - result.acceptPerS.on)) / result.acceptPerS.off;
    result.cpuIncreasePct = (100 * (result.allCpuMsPerAlert.on - result.allCpuMsPerAlert.off)) / result.allCpuMsPerAlert.off;
    result.processSlowdownPct = (100 * (result.processPerS.off - result.processPerS.on)) / result.processPerS.off;
    log("part 2:", JSON.stringify(result));
    return result;
  } finally {
    await sys.stop();
  }
}

const sink = await startSink();
try {
  const delivery = opt.only === "storm" ? undefined : await partDelivery(sink);
  const stormResult = opt.only === "delivery" ? undefined : await partStorm(sink);
  console.log(JSON.stringify({ queue: opt.queue, delivery, storm: stormResult }, null, 2));
} finally {
  await sink.close();
}
