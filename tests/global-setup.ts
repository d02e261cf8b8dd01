import { fileURLToPath } from "node:url";
import { type Backend, startMongo, startRedis } from "@tocsin/testing";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    /** Empty when no Redis could be had (never under CI). */
    redisUrl: string;
    /** Empty when no MongoDB-protocol server could be had (never under CI). */
    mongoUrl: string;
  }
}

const repoRoot = fileURLToPath(new URL("..", import.meta.url));
const started: Backend[] = [];

/**
 * Finds or starts real Redis and a real MongoDB-wire-protocol server (FerretDB) once per run.
 * Under CI a missing backend fails the run; elsewhere its suites skip and say so.
 */
export default async function setup(project: TestProject) {
  const [redis, mongo] = await Promise.all([startRedis(), startMongo(repoRoot)]);
  for (const b of [redis, mongo]) if (b) started.push(b);
  const missing = [!redis && "Redis", !mongo && "MongoDB protocol (FerretDB: run scripts/install-ferretdb.sh)"].filter(Boolean);
  console.log(
    `[backends] redis: ${redis ? `${redis.url} (${redis.origin})` : "MISSING"}; mongodb: ${mongo ? `${mongo.url} (${mongo.origin})` : "MISSING"}`,
  );
  if (missing.length && process.env.CI) throw new Error(`CI requires every backend; missing: ${missing.join(", ")}`);
  project.provide("redisUrl", redis?.url ?? "");
  project.provide("mongoUrl", mongo?.url ?? "");
  return async () => {
    await Promise.all(started.map((b) => b.stop()));
  };
}
