#!/usr/bin/env node
// Container health probe without extra binaries.
//   node deploy/healthcheck.mjs http http://127.0.0.1:8080/-/readiness
//   node deploy/healthcheck.mjs grpc 127.0.0.1:50051
// Exit 0 when healthy (HTTP 2xx, or grpc.health.v1 SERVING), 1 otherwise; at most 4 s.
import { credentials, makeGenericClientConstructor } from "@grpc/grpc-js";
import { service as healthService } from "grpc-health-check";

const [kind, target] = process.argv.slice(2);
const TIMEOUT_MS = 4000;

async function httpOk(url) {
  const res = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS) });
  return res.ok;
}

function grpcServing(address) {
  const Health = makeGenericClientConstructor(healthService, "Health");
  const client = new Health(address, credentials.createInsecure());
  return new Promise((resolve) => {
    client.check({ service: "" }, { deadline: new Date(Date.now() + TIMEOUT_MS) }, (err, res) => {
      client.close();
      resolve(!err && (res?.status === "SERVING" || res?.status === 1));
    });
  });
}

try {
  const ok = kind === "http" ? await httpOk(target) : kind === "grpc" ? await grpcServing(target) : false;
  if (!ok) console.error(`unhealthy: ${kind} ${target}`);
  process.exit(ok ? 0 : 1);
} catch (err) {
  console.error(`unhealthy: ${kind} ${target}: ${err.message}`);
  process.exit(1);
}
