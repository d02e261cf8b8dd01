// Cost of the webhook protections per request (issue 12): the X-Tocsin-Signature check and the
// per-integration rate limiter (in memory, and on Redis when REDIS_URL is set), next to the time
// one accepted request takes at the measured accept rates (bench/README.md, "Alert intake").
// Run after `npm run build`: node bench/protection.mjs   (REDIS_URL=redis://127.0.0.1:6379 for Redis)
import { createHmac } from "node:crypto";
import { silentLogger } from "@tocsin/core";
import { Redis } from "ioredis";
import { createFlexibleLimiter } from "../alert-service/dist/limits/flexible-limiter.js";
import { verifySignature } from "../gateway/dist/webhook/signature.js";

const ACCEPT_RATES = { "embedded store (709 req/s)": 709, "MongoDB + BullMQ (504 req/s)": 504 };
const logger = silentLogger();

async function perOp(name, n, fn) {
  for (let i = 0; i < Math.min(n, 2000); i++) await fn(i); // warm-up
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await fn(i);
  const us = Number(process.hrtime.bigint() - start) / 1e3 / n;
  return { name, us };
}

const secret = "a".repeat(64);
const body = Buffer.from(JSON.stringify({ title: "x".repeat(900), fingerprint: "bench" })); // ≈ 1 KiB
const t = Math.floor(Date.now() / 1000);
const header = `t=${t},v1=${createHmac("sha256", secret).update(`${t}.`).update(body).digest("hex")}`;

const results = [];
results.push(await perOp("signature check, 1 KiB body", 50_000, () => verifySignature(header, secret, body, t)));
const memory = createFlexibleLimiter({ prefix: "bench", logger });
// 1,000 integrations, a budget no request exhausts: the cost of counting, not of refusing.
results.push(await perOp("rate limiter, in memory", 50_000, (i) => memory.take(i % 1000, 60_000_000, false)));
if (process.env.REDIS_URL) {
  const redis = new Redis(process.env.REDIS_URL, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
  await new Promise((r) => redis.once("ready", r));
  const shared = createFlexibleLimiter({ redis, prefix: `bench-${process.pid}`, logger });
  results.push(
    await perOp("rate limiter, Redis (one round trip, sequential)", 5_000, (i) => shared.take(i % 1000, 60_000_000, false)),
  );
  redis.disconnect();
}

for (const r of results) {
  const shares = Object.entries(ACCEPT_RATES)
    .map(([label, rate]) => `${((r.us / (1e6 / rate)) * 100).toFixed(2)} % of a request at ${label}`)
    .join("; ");
  console.log(`${r.name}: ${r.us.toFixed(1)} µs per request — ${shares}`);
}
