#!/usr/bin/env node
// Fail-fast benchmark: how long the gateway takes to answer when a dependency is down. These were
// upper-bound assertions in tests (flaky on a loaded machine); the speed is measured here instead.
//
// Usage: npm run build && node bench/fail-fast.mjs [--requests 50]
// Boots the gateway from its built package (as gateway/src/main.ts does) with auth-service, alert-service
// and settings-service pointing at a closed loopback port, then times, one request at a time:
// `GET /api/v4/user` with a token (→ 503 with Retry-After) and `GET /-/readiness` (→ 503).
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { createLogger, systemClock } from "@tocsin/core";
import { createGateway, loadConfig } from "@tocsin/gateway";

const { values } = parseArgs({ options: { requests: { type: "string", default: "50" } } });
const n = Number(values.requests);
const down = "127.0.0.1:1";
const config = loadConfig({ PORT: "0", AUTH_SERVICE_ADDR: down, ALERT_SERVICE_ADDR: down, SETTINGS_SERVICE_ADDR: down });
const gateway = await createGateway(config, { logger: createLogger("gateway", "silent"), clock: systemClock });

async function time(path, headers) {
  const ms = [];
  const statuses = new Set();
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    const res = await fetch(`${gateway.url}${path}`, { headers });
    await res.arrayBuffer();
    ms.push(performance.now() - started);
    statuses.add(res.status);
  }
  ms.sort((a, b) => a - b);
  const at = (q) => ms[Math.min(ms.length - 1, Math.floor(q * ms.length))].toFixed(1);
  return { path, statuses: [...statuses].join(","), p50: at(0.5), p99: at(0.99), max: ms[ms.length - 1].toFixed(1) };
}

try {
  const rows = [await time("/api/v4/user", { "PRIVATE-TOKEN": "any-token-0123456789" }), await time("/-/readiness", {})];
  console.log(`node ${process.version}, ${n} sequential requests each, all three services unreachable`);
  console.log("| request | status | p50 ms | p99 ms | max ms |");
  console.log("|---|---|---|---|---|");
  for (const r of rows) console.log(`| GET ${r.path} | ${r.statuses} | ${r.p50} | ${r.p99} | ${r.max} |`);
} finally {
  await gateway.stop();
}
