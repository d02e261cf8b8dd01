#!/usr/bin/env node
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
// Soak (issue 27): does any process's memory grow without bound under a steady, modest load?
// The four services from their builds (bench/alert-system.mjs, embedded default or --queue redis),
// webhook posts at a steady rate over a set of fingerprints (repeats of open alerts, as monitors
// send them), RSS of every process sampled through the run, and a heap snapshot of every service
// after the warm-up and at the end (`--heapsnapshot-signal`; a snapshot follows a full GC), whose
// difference by constructor shows what grew. See bench/README.md, "Soak".
//
// Usage: npm run build && node bench/soak.mjs [--minutes 60] [--rate 88] [--fingerprints 5000]
//          [--warmup 60] [--sample 30] [--queue local|redis] [--keep DIR]
// Loopback only; the run ends by itself after --minutes.
import { Agent, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import * as L from "./alert-load.mjs";
import { seed } from "./alert-seed.mjs";
import { rssMiB, sleep, startSystem } from "./alert-system.mjs";

const { values: opt } = parseArgs({
  options: {
    minutes: { type: "string", default: "60" },
    rate: { type: "string", default: "88" },
    fingerprints: { type: "string", default: "5000" },
    warmup: { type: "string", default: "60" },
    sample: { type: "string", default: "30" },
    queue: { type: "string", default: "local" },
    keep: { type: "string" },
  },
});
const CFG = {
  minutes: Number(opt.minutes),
  rate: Number(opt.rate),
  fingerprints: Number(opt.fingerprints),
  warmupS: Number(opt.warmup),
  sampleS: Number(opt.sample),
};
const log = (...a) => console.log(`[${new Date().toISOString().slice(11, 19)}]`, ...a);
const SERVICES = ["auth", "settings", "alert", "gateway"];

const snapDir = opt.keep ?? mkdtempSync(join(tmpdir(), "tocsin-soak-"));
mkdirSync(snapDir, { recursive: true });
const nodeArgs = Object.fromEntries(
  SERVICES.map((s) => [s, ["--heapsnapshot-signal=SIGUSR2", `--diagnostic-dir=${join(snapDir, s)}`]]),
);
for (const s of SERVICES) mkdirSync(join(snapDir, s), { recursive: true });

/** Sends SIGUSR2 and waits for the new snapshot file to be complete; returns its path. */
async function snapshot(name, pid) {
  const dir = join(snapDir, name);
  const before = new Set(readdirSync(dir));
  process.kill(pid, "SIGUSR2");
  for (let i = 0; i < 600; i++) {
    await sleep(500);
    const fresh = readdirSync(dir).filter((f) => !before.has(f) && f.endsWith(".heapsnapshot"));
    if (fresh.length) {
      const file = join(dir, fresh[0]);
      // Written in one go by the process; complete once its size stops changing.
      const s1 = statSync(file).size;
      await sleep(1000);
      if (statSync(file).size === s1 && s1 > 0) return file;
    }
  }
  throw new Error(`no heap snapshot from ${name}`);
}

/** Self size and count per constructor (node type/name) of a V8 heap snapshot. */
function summarize(file) {
  const snap = JSON.parse(readFileSync(file, "utf8"));
  const f = snap.snapshot.meta.node_fields;
  const types = snap.snapshot.meta.node_types[0];
  const [iType, iName, iSize] = ["type", "name", "self_size"].map((k) => f.indexOf(k));
  const byKey = new Map();
  let total = 0;
  for (let i = 0; i < snap.nodes.length; i += f.length) {
    const type = types[snap.nodes[i + iType]];
    const name = type === "object" || type === "closure" ? snap.strings[snap.nodes[i + iName]] : `(${type})`;
    const key = `${type}:${name}`;
    const size = snap.nodes[i + iSize];
    total += size;
    const e = byKey.get(key) ?? { count: 0, size: 0 };
    e.count++;
    e.size += size;
    byKey.set(key, e);
  }
  return { total, byKey };
}

function diff(a, b, top = 12) {
  const rows = [];
  for (const [key, e] of b.byKey) {
    const o = a.byKey.get(key) ?? { count: 0, size: 0 };
    rows.push({ key, dCount: e.count - o.count, dSize: e.size - o.size, size: e.size });
  }
  return rows.sort((x, y) => y.dSize - x.dSize).slice(0, top);
}

const agent = new Agent({ keepAlive: true, maxSockets: 16 });
function post(url, token, body) {
  return new Promise((resolve) => {
    const req = request(url, {
      method: "POST",
      agent,
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    });
    req.on("response", (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode));
    });
    req.on("error", () => resolve(0));
    req.end(body);
  });
}

const sys = await startSystem({ queue: opt.queue === "redis" ? "redis" : "local", nodeArgs, redisAof: true });
const statuses = new Map();
let posted = 0;
let stopLoad = false;
try {
  const s = await seed(sys.url);
  await L.http(sys.url, "PUT", `/api/v4/projects/${s.projectId}/alert_management/http_integrations/${s.plain.id}`, s.token, {
    rate_limit_per_minute: 0,
  });
  log(`soak: ${CFG.minutes} min at ${CFG.rate} posts/s over ${CFG.fingerprints} fingerprints, queue ${opt.queue}`);
  const t0 = Date.now();
  // Paced: post number n goes out at t0 + n / rate, whatever the answers take.
  const load = (async () => {
    const inFlight = new Set();
    while (!stopLoad) {
      const due = t0 + (posted * 1000) / CFG.rate;
      if (due > Date.now()) await sleep(due - Date.now());
      const n = posted++;
      const fp = n % CFG.fingerprints;
      const body = JSON.stringify({ title: `soak ${fp}`, fingerprint: `soak-${fp}`, severity: "high", service: "soak" });
      const p = post(s.plain.url, s.plain.token, body).then((code) => {
        statuses.set(code, (statuses.get(code) ?? 0) + 1);
        inFlight.delete(p);
      });
      inFlight.add(p);
    }
    await Promise.all(inFlight);
  })();
  const samples = [];
  const sampleNow = () => {
    const row = { minute: (Date.now() - t0) / 60_000 };
    for (const name of SERVICES) row[name] = rssMiB(sys.procs[name]);
    samples.push(row);
  };
  await sleep(CFG.warmupS * 1000);
  sampleNow();
  log("warm-up done: heap snapshots (start)");
  const first = {};
  for (const name of SERVICES) first[name] = await snapshot(name, sys.procs[name]);
  const end = t0 + CFG.minutes * 60_000;
  while (Date.now() < end) {
    await sleep(Math.min(CFG.sampleS * 1000, Math.max(0, end - Date.now())));
    sampleNow();
    const last = samples.at(-1);
    log(`minute ${last.minute.toFixed(1)}: ${SERVICES.map((n) => `${n} ${last[n]?.toFixed(1)} MiB`).join(", ")}`);
  }
  stopLoad = true;
  await load;
  log("heap snapshots (end)");
  const lastSnaps = {};
  for (const name of SERVICES) lastSnaps[name] = await snapshot(name, sys.procs[name]);

  console.log(`\n## Soak: ${CFG.minutes} min, ${posted} posts (${JSON.stringify(Object.fromEntries(statuses))})\n`);
  console.log("| process | RSS after warm-up (MiB) | RSS at the end | max | heap after warm-up (MiB) | heap at the end |");
  console.log("|---|---|---|---|---|---|");
  const summaries = {};
  for (const name of SERVICES) {
    const a = summarize(first[name]);
    const b = summarize(lastSnaps[name]);
    summaries[name] = { a, b };
    const rss = samples.map((r) => r[name]).filter((v) => v !== null);
    console.log(
      `| ${name} | ${rss[0]?.toFixed(1)} | ${rss.at(-1)?.toFixed(1)} | ${Math.max(...rss).toFixed(1)} | ${(a.total / 2 ** 20).toFixed(1)} | ${(b.total / 2 ** 20).toFixed(1)} |`,
    );
  }
  for (const name of SERVICES) {
    const { a, b } = summaries[name];
    console.log(`\n### ${name}: what grew between the snapshots (self size)\n`);
    console.log("| constructor | Δ count | Δ KiB | KiB at the end |");
    console.log("|---|---|---|---|");
    for (const r of diff(a, b))
      console.log(`| ${r.key} | ${r.dCount} | ${(r.dSize / 1024).toFixed(1)} | ${(r.size / 1024).toFixed(1)} |`);
  }
  console.log("\nRSS samples (minute: auth, settings, alert, gateway MiB):");
  for (const r of samples) console.log(`  ${r.minute.toFixed(1)}: ${SERVICES.map((n) => r[n]?.toFixed(1)).join(", ")}`);
} finally {
  stopLoad = true;
  await sys.stop();
  if (!opt.keep) rmSync(snapDir, { recursive: true, force: true });
}
