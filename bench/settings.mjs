#!/usr/bin/env node
// Settings benchmark: GET and PUT of a project notification setting through the gateway, beside a
// plain node:http server answering the same JSON, in the same run; a fixed-rate run at 500 req/s
// for p99; and ResolveRecipients for 1,000 members under a 5-level group chain (over gRPC).
//
// Usage: npm run build && node bench/settings.mjs [--duration 20] [--runs 3] [--connections 10]
//        [--only-http] [--cpu-prof DIR]
// --only-http skips the ResolveRecipients part; --cpu-prof writes a CPU profile of each service
// (auth, settings, gateway) to DIR.
// The script boots auth-service, settings-service and the gateway itself from the built dist
// packages (`loadConfig` + `createXService`, as each main.ts), each in its own child process (as in production, and
// so that autocannon does not share their event loop), with SQLite stores in a temporary folder.
import { fork } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { median } from "./lib/stats.mjs";

const ADMIN_TOKEN = "bench-admin-token-0123456789abcdef";

/** Child role: start one service from its dist package and report its address. */
async function serve(role) {
  const env = JSON.parse(process.env.BENCH_ENV ?? "{}");
  const { createLogger, systemClock } = await import("@tocsin/core");
  // As each main.ts does: parse the environment once, then createXService(config, { logger, clock }).
  const boot = async (name, pkg, create) => {
    const mod = await import(pkg);
    const config = mod.loadConfig(env);
    return mod[create](config, { logger: createLogger(name, config.logLevel), clock: systemClock });
  };
  const start = {
    auth: () => boot("auth-service", "@tocsin/auth-service", "createAuthService"),
    settings: () => boot("settings-service", "@tocsin/settings-service", "createSettingsService"),
    gateway: () => boot("gateway", "@tocsin/gateway", "createGateway"),
    baseline: async () => startBaseline(env.BODY),
  }[role];
  const running = await start();
  process.send?.({ address: running.address ?? running.url });
  process.on("message", async (m) => {
    if (m === "stop") {
      await running.stop();
      process.exit(0);
    }
  });
}

function startBaseline(body) {
  const server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(body) });
    res.end(body);
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({ url: `http://127.0.0.1:${server.address().port}`, stop: () => new Promise((r) => server.close(r)) }),
    ),
  );
}

function stopChild(proc) {
  return new Promise((resolve) => {
    proc.once("exit", resolve);
    proc.send("stop");
  });
}

function child(role, env, execArgv = []) {
  const proc = fork(new URL(import.meta.url).pathname, ["--serve", role], {
    execArgv,
    env: { ...process.env, BENCH_ENV: JSON.stringify({ LOG_LEVEL: "warn", ...env }) },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  return new Promise((resolve, reject) => {
    proc.once("message", (m) => resolve({ address: m.address, stop: () => stopChild(proc) }));
    proc.once("exit", (code) => reject(new Error(`${role} exited with ${code}`)));
  });
}

async function http(url, method, path, token, body) {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { "PRIVATE-TOKEN": token, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await res.json();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

function run(opts) {
  return new Promise((resolve, reject) => {
    const instance = autocannon(opts, (err, result) => (err ? reject(err) : resolve(result)));
    autocannon.track(instance, { renderProgressBar: false, renderResultsTable: false, renderLatencyTable: false });
  });
}

/** bench/README.md method: a 5 s warm-up thrown away, then `runs` runs; medians of each figure. */
async function measure(opts, runs) {
  await run({ ...opts, duration: 5 });
  const results = [];
  for (let i = 0; i < runs; i++) results.push(await run(opts));
  return {
    rps: Math.round(median(results.map((r) => r.requests.average))),
    p50: median(results.map((r) => r.latency.p50)),
    p99: median(results.map((r) => r.latency.p99)),
    non2xx: results.reduce((n, r) => n + r.errors + r.non2xx, 0),
  };
}

async function seed(url) {
  const admin = (method, path, body) => http(url, method, `/api/v4${path}`, ADMIN_TOKEN, body);
  const user = await admin("POST", "/users", { username: "bencher", email: "bencher@example.com", name: "Bencher" });
  const { token } = await admin("POST", `/users/${user.id}/personal_access_tokens`, { name: "bench", scopes: ["api"] });
  const project = await http(url, "POST", "/api/v4/projects", token, { name: "bench", path: "bench" });
  return { user, token, project };
}

/** 5-level chain g1 > ... > g5, project in g5, 1,000 members spread over the chain and the project. */
async function seedChain(url, settingsAddr) {
  const admin = (method, path, body) => http(url, method, `/api/v4${path}`, ADMIN_TOKEN, body);
  const groups = [];
  for (let i = 1; i <= 5; i++)
    groups.push(
      await admin("POST", "/groups", { name: `g${i}`, path: `g${i}`, ...(i > 1 ? { parent_id: groups[i - 2].id } : {}) }),
    );
  const project = await admin("POST", "/projects", { name: "deep", path: "deep", namespace_id: groups[4].id });
  const ids = [];
  for (let batch = 0; batch < 1000; batch += 25) {
    await Promise.all(
      Array.from({ length: 25 }, async (_, k) => {
        const i = batch + k;
        const u = await admin("POST", "/users", { username: `member${i}`, email: `member${i}@example.com`, name: `M ${i}` });
        const target = i % 6 === 5 ? `/projects/${project.id}` : `/groups/${groups[i % 5].id}`;
        await admin("POST", `${target}/members`, { user_id: u.id, access_level: 30 });
        ids[i] = u.id;
      }),
    );
  }
  // Settings of every kind along the chain, written over gRPC as each user.
  const { createClient } = await import("@tocsin/grpc");
  const { settingsV1 } = await import("@tocsin/proto");
  const client = createClient(settingsV1.SettingsServiceService, { target: "settings", address: settingsAddr });
  const levels = ["watch", "disabled", "custom", "mention", "global", "participating"];
  const { SOURCE_TYPE_GROUP, SOURCE_TYPE_PROJECT } = settingsV1.SourceType;
  for (let batch = 0; batch < 1000; batch += 50) {
    await Promise.all(
      ids.slice(batch, batch + 50).map((userId, k) => {
        const i = batch + k;
        // Each user sets the source it belongs to (a group of the chain, or the project).
        const [sourceType, id] = i % 6 === 5 ? [SOURCE_TYPE_PROJECT, project.id] : [SOURCE_TYPE_GROUP, groups[i % 5].id];
        return client.updateSourceSetting(
          { userId, sourceType, sourceIdOrPath: String(id), level: levels[i % 4 === 0 ? 4 : i % 6], events: { newNote: true } },
          { requestId: "seed", principal: { userId } },
        );
      }),
    );
  }
  return { client, projectId: project.id, participants: ids.slice(0, 50), mentioned: ids.slice(50, 60) };
}

async function timeRecipients({ client, projectId, participants, mentioned }, runs = 50) {
  const call = () =>
    client.resolveRecipients(
      { projectId, event: "new_note", participantUserIds: participants, mentionedUserIds: mentioned },
      { requestId: "bench" },
    );
  for (let i = 0; i < 5; i++) await call();
  const times = [];
  let count = 0;
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    count = (await call()).recipients.length;
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))].toFixed(1);
  return { runs, recipients: count, median: at(0.5), p99: at(0.99), max: times.at(-1).toFixed(1) };
}

async function main() {
  const { values } = parseArgs({
    options: {
      duration: { type: "string", default: "20" },
      connections: { type: "string", default: "10" },
      runs: { type: "string", default: "3" },
      "only-http": { type: "boolean", default: false },
      "cpu-prof": { type: "string" },
    },
  });
  const duration = Number(values.duration);
  const connections = Number(values.connections);
  const runs = Number(values.runs);
  const dir = mkdtempSync(join(tmpdir(), "tocsin-bench-"));
  const base = { ADMIN_TOKEN, SECRET_KEY: "bench-secret-key-0123456789abcdef" };
  const procs = [];
  const profile = values["cpu-prof"] ? ["--cpu-prof", `--cpu-prof-dir=${values["cpu-prof"]}`] : [];
  try {
    const auth = await child("auth", { ...base, AUTH_SERVICE_ADDR: "127.0.0.1:0", DATA_DIR: join(dir, "auth") }, profile);
    procs.push(auth);
    const settings = await child(
      "settings",
      { ...base, AUTH_SERVICE_ADDR: auth.address, SETTINGS_SERVICE_ADDR: "127.0.0.1:0", DATA_DIR: join(dir, "settings") },
      profile,
    );
    procs.push(settings);
    const gateway = await child(
      "gateway",
      {
        ...base,
        PORT: "0",
        AUTH_SERVICE_ADDR: auth.address,
        SETTINGS_SERVICE_ADDR: settings.address,
        ALERT_SERVICE_ADDR: "127.0.0.1:1",
      },
      profile,
    );
    procs.push(gateway);
    const url = gateway.address;

    const { token, project } = await seed(url);
    const path = `/api/v4/projects/${project.id}/notification_settings`;
    const sample = await http(url, "PUT", `${path}?level=custom&new_note=true`, token);
    const baseline = await child("baseline", { BODY: JSON.stringify(sample) });
    procs.push(baseline);

    const headers = { "PRIVATE-TOKEN": token, "content-type": "application/json" };
    const putBody = JSON.stringify({ level: "custom", new_note: true, failed_pipeline: false });
    const common = { connections, duration, headers };
    const load = () =>
      loadavg()
        .map((l) => l.toFixed(2))
        .join(" ");
    console.log(
      `# settings benchmark: ${connections} connections, ${runs} × ${duration} s per row (medians), node ${process.version}, load average ${load()}`,
    );
    const results = {
      "baseline GET": await measure({ ...common, url: `${baseline.address}${path}` }, runs),
      "gateway GET": await measure({ ...common, url: `${url}${path}` }, runs),
      "baseline PUT": await measure({ ...common, url: `${baseline.address}${path}`, method: "PUT", body: putBody }, runs),
      "gateway PUT": await measure({ ...common, url: `${url}${path}`, method: "PUT", body: putBody }, runs),
      "gateway GET @500/s": await measure({ ...common, url: `${url}${path}`, overallRate: 500 }, runs),
      "gateway PUT @500/s": await measure(
        { ...common, url: `${url}${path}`, method: "PUT", body: putBody, overallRate: 500 },
        runs,
      ),
    };
    console.table(results);
    const ratio = (a, b) => `${((100 * results[a].rps) / results[b].rps).toFixed(0)}%`;
    console.log(
      `GET ratio gateway/baseline: ${ratio("gateway GET", "baseline GET")}; PUT ratio: ${ratio("gateway PUT", "baseline PUT")}`,
    );
    console.log(`# load average after the HTTP rows: ${load()}`);
    if (values["only-http"]) return;

    console.log("# seeding 1,000 members under a 5-level chain ...");
    const chain = await seedChain(url, settings.address);
    const recipients = await timeRecipients(chain);
    console.log("ResolveRecipients (gRPC, 1,000 members, 5-level chain, ms):", recipients);
    chain.client.close();
  } finally {
    for (const p of procs.reverse()) await p.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === "--serve") await serve(process.argv[3]);
else await main();
