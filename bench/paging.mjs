#!/usr/bin/env node
// Paging under a burst (issue 22). See bench/README.md, section "Paging".
//
// Usage: npm run build && node bench/paging.mjs [options]
//   --alerts N        alerts triggering at once (default 1000)
//   --projects N      Premium projects, each with an on-call schedule and a policy (default 10)
//   --elapsed S       the policy's rule: page the on-call user S seconds after the trigger (default 15)
//   --concurrency N   concurrent posters (default 50)
//   --queue local|redis
//   --oncall K        users on call at once in each project's schedule (K rotations of one
//                     participant each): each page e-mails K users (default 1)
// Every alert is a distinct alert of one of the projects; every policy has one rule, due `elapsed`
// seconds after the trigger, paging the project's on-call user (a one-participant rotation). The
// figure is the delay from each page's due time to its acceptance by a local smtp-server:
// due = the alert's created_at + elapsed (the trigger's time is taken in the same batch, just
// after created_at: the delay is, if anything, overstated by that gap). p50, p99, max.
// The baseline, first in the same run: Prometheus Alertmanager (.tmp/bin, v0.28.1) e-mailing as many
// alerts to the same smtp-server after the same wait (group_wait), its delay measured the same way.
// Every service runs in its own process from its build; every target is 127.0.0.1.
import { parseArgs } from "node:util";
import { SMTPServer } from "smtp-server";
import { cpuSeconds, freePort, rest, startSystem, until } from "./alert-system.mjs";
import { notifyEachAlertConfig, postEachAlert, startAlertmanager } from "./storm/alertmanager.mjs";

const { values: opt } = parseArgs({
  options: {
    alerts: { type: "string", default: "1000" },
    projects: { type: "string", default: "10" },
    elapsed: { type: "string", default: "15" },
    concurrency: { type: "string", default: "50" },
    queue: { type: "string", default: "local" },
    oncall: { type: "string", default: "1" },
  },
});
const N = Number(opt.alerts);
const P = Number(opt.projects);
const ELAPSED_S = Number(opt.elapsed);
const K = Number(opt.oncall);
const log = (...a) => console.log(`[${new Date().toISOString().slice(11, 19)}]`, ...a);

/** A local smtp-server recording, per page, its project, alert iid and the time it was accepted. */
async function startSink() {
  const port = await freePort();
  const pages = [];
  const amPages = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    closeTimeout: 200,
    onData(stream, _session, callback) {
      let head = "";
      stream.on("data", (chunk) => {
        if (head.length < 8192) head += chunk.toString("utf8");
      });
      stream.on("end", () => {
        const acceptedAt = Date.now();
        const project = /^X-Tocsin-Project: (.*)$/im.exec(head)?.[1]?.trim();
        const iid = Number(/^X-Tocsin-Alert-IID: (\d+)/im.exec(head)?.[1]);
        if (/^X-Tocsin-Page:/im.test(head)) pages.push({ project, iid, acceptedAt });
        const am = /^Subject: am-page (\d+)/im.exec(head);
        if (am) amPages.push({ i: Number(am[1]), acceptedAt });
        callback();
      });
    },
  });
  await new Promise((resolve) => server.listen(port, "127.0.0.1", resolve));
  return { url: `smtp://127.0.0.1:${port}`, port, pages, amPages, close: () => new Promise((r) => server.close(r)) };
}

const call = async (url, method, path, body) => (await rest(url, method, path, { body })).json;

/** A Premium project with K members on call around the clock (a rotation each), a policy paging them, an integration. */
async function seedProject(sys, group, k) {
  const project = await call(sys.url, "POST", "/api/v4/projects", { name: `svc${k}`, path: `svc${k}`, namespace_id: group.id });
  const im = `/api/v4/projects/${project.id}/incident_management`;
  await call(sys.url, "POST", `${im}/oncall_schedules`, { name: "Primary", timezone: "UTC" });
  for (let j = 0; j < K; j++) {
    const name = K === 1 ? `oncall${k}` : `oncall${k}-${j}`;
    const user = await call(sys.url, "POST", "/api/v4/users", { username: name, email: `${name}@example.com`, name });
    await call(sys.url, "POST", `/api/v4/projects/${project.id}/members`, { user_id: user.id, access_level: 30 });
    await call(sys.url, "POST", `${im}/oncall_schedules/1/rotations`, {
      name: `Always ${j}`,
      starts_at: "2020-01-06T00:00",
      rotation_length: { length: 1, unit: "weeks" },
      participants: [user.username],
    });
  }
  await call(sys.url, "POST", `${im}/escalation_policies`, {
    name: "Bench",
    rules: [{ status: "acknowledged", elapsed_time_seconds: ELAPSED_S, oncall_schedule_iid: 1 }],
  });
  const integration = await call(sys.url, "POST", `/api/v4/projects/${project.id}/alert_management/http_integrations`, {
    name: "Bench",
    active: true,
  });
  return {
    id: project.id,
    fullPath: project.path_with_namespace,
    path: new URL(integration.url).pathname,
    key: integration.token,
  };
}

/** created_at of every alert of a project, by iid, and when its page was recorded (the rule job ran). */
async function alertTimes(sys, project) {
  const out = new Map();
  for (let page = 1; ; page++) {
    const list = await call(sys.url, "GET", `/api/v4/projects/${project.id}/alert_management/alerts?per_page=100&page=${page}`);
    for (const a of list) out.set(a.iid, { created: Date.parse(a.created_at) });
    if (list.length < 100) break;
  }
  const iids = [...out.keys()];
  const worker = async () => {
    for (let iid = iids.pop(); iid !== undefined; iid = iids.pop()) {
      const d = await call(sys.url, "GET", `/api/v4/projects/${project.id}/alert_management/alerts/${iid}`);
      const at = d.escalation?.pages?.[0]?.at;
      if (at) out.get(iid).paged = Date.parse(at);
    }
  };
  await Promise.all(Array.from({ length: 10 }, worker));
  return out;
}

const summary = (xs) => {
  const s = xs.filter((d) => Number.isFinite(d)).sort((a, b) => a - b);
  return { min: s[0], p50: percentile(s, 50), p99: percentile(s, 99), max: s.at(-1) };
};

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

/**
 * The baseline, in the same run: Prometheus Alertmanager e-mailing the same number of alerts to the
 * same smtp-server, each alert notified on its own `--elapsed` seconds after Alertmanager took it
 * (`group_wait`), posted one alert per request by `--concurrency` posters as Tocsin's are. The
 * delay is measured the same way: SMTP acceptance − (accepted + elapsed).
 */
async function baseline(sink) {
  const receiver = `    email_configs:
      - to: oncall@example.com
        from: alertmanager@example.com
        smarthost: 127.0.0.1:${sink.port}
        require_tls: false
        send_resolved: false
        headers:
          Subject: 'am-page {{ .CommonLabels.n }}'`;
  const am = await startAlertmanager({ config: notifyEachAlertConfig(ELAPSED_S, receiver) });
  try {
    log(`baseline: Alertmanager ${am.version}, ${N} alerts, group_wait ${ELAPSED_S} s, e-mail to the same smtp-server`);
    const acceptedAt = await postEachAlert(am.url, N, Number(opt.concurrency), (i) => ({
      labels: { alertname: `burst-${i}`, n: String(i), severity: "critical" },
    }));
    await until(() => sink.amPages.length >= N, 10 * 60_000, `${N} Alertmanager e-mails`);
    const delays = sink.amPages.map((p) => p.acceptedAt - (acceptedAt[p.i] + ELAPSED_S * 1000));
    const result = { alertmanager: am.version, mails: sink.amPages.length, delayMs: summary(delays) };
    log("baseline:", JSON.stringify(result));
    return result;
  } finally {
    await am.stop();
  }
}

async function main() {
  const sink = await startSink();
  const peer = await baseline(sink);
  const sys = await startSystem({ queue: opt.queue, env: { SMTP_URL: sink.url } });
  try {
    const group = await call(sys.url, "POST", "/api/v4/groups", { name: "bench", path: "bench", plan: "premium" });
    const projects = [];
    for (let k = 0; k < P; k++) projects.push(await seedProject(sys, group, k));
    log(
      `${P} projects seeded; ${N} alerts, rule due ${ELAPSED_S} s after each trigger, ${K} user(s) per page (${opt.queue} queue)`,
    );
    const cpu0 = Object.fromEntries(Object.entries(sys.procs).map(([k, pid]) => [k, cpuSeconds(pid)]));
    let next = 0;
    const t0 = Date.now();
    const poster = async () => {
      for (let i = next++; i < N; i = next++) {
        const p = projects[i % P];
        const res = await fetch(`${sys.url}${p.path}`, {
          method: "POST",
          headers: { authorization: `Bearer ${p.key}`, "content-type": "application/json" },
          body: JSON.stringify({ title: `burst ${i}`, fingerprint: `burst-${i}`, severity: "critical" }),
        });
        await res.text();
        if (res.status !== 202) throw new Error(`post ${i}: ${res.status}`);
      }
    };
    await Promise.all(Array.from({ length: Number(opt.concurrency) }, poster));
    const acceptedS = (Date.now() - t0) / 1000;
    log(`accepted ${N} alerts in ${acceptedS.toFixed(2)} s`);
    await until(() => sink.pages.length >= N * K, 10 * 60_000, `${N * K} page e-mails`);
    const cpuS = Object.fromEntries(
      Object.entries(sys.procs).map(([k, pid]) => [k, Math.round((cpuSeconds(pid) - cpu0[k]) * 100) / 100]),
    );
    const times = new Map();
    for (const p of projects) times.set(p.fullPath, await alertTimes(sys, p));
    const rows = sink.pages.map((pg) => {
      const t = times.get(pg.project)?.get(pg.iid);
      const due = (t?.created ?? Number.NaN) + ELAPSED_S * 1000;
      return {
        delay: pg.acceptedAt - due,
        toPaged: (t?.paged ?? Number.NaN) - due,
        toSmtp: pg.acceptedAt - (t?.paged ?? Number.NaN),
      };
    });
    const delays = rows
      .map((r) => r.delay)
      .filter((d) => Number.isFinite(d))
      .sort((a, b) => a - b);
    const result = {
      alerts: N,
      projects: P,
      elapsedS: ELAPSED_S,
      queue: opt.queue,
      usersPerPage: K,
      pages: sink.pages.length,
      acceptedS,
      delayMs: {
        min: delays[0],
        p50: percentile(delays, 50),
        p99: percentile(delays, 99),
        max: delays.at(-1),
      },
      withinOneSecond: delays.filter((d) => d <= 1000).length,
      // The two halves: due → the rule job recorded the page (timer, lookups, lane), then → SMTP acceptance (mail queue).
      dueToPagedMs: summary(rows.map((r) => r.toPaged)),
      pagedToSmtpMs: summary(rows.map((r) => r.toSmtp)),
      cpuS,
      alertmanager: peer,
    };
    log(JSON.stringify(result));
    return result;
  } finally {
    await sys.stop();
    await sink.close();
  }
}

await main();
