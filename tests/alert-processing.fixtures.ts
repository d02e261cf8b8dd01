import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type CallContext, forbidden, notFound, silentLogger } from "@tocsin/core";
import { FakeClock } from "@tocsin/testing";
import Database from "better-sqlite3";
import { Redis } from "ioredis";
import { MongoClient } from "mongodb";
import { type AlertsRuntime, createAlertsRuntime } from "../alert-service/src/alerts-runtime.js";
import type { IntegrationDirectory, ProjectAccess } from "../alert-service/src/domain/ports.js";
import type { IntegrationRuntime, PayloadMapping, Tier } from "../alert-service/src/domain/types.js";

/** Fakes for what lives outside alert processing: auth-service's projects and the integrations use-cases. */
export class FakeWorld {
  private nextProject = 1 + Math.floor(Math.random() * 1000) * 1000;
  private nextIntegration = 1;
  readonly tiers = new Map<number, Tier>();
  readonly levels = new Map<number, number>();
  readonly integrations = new Map<number, IntegrationRuntime>();
  readonly opsgenie = new Map<number, string>();

  project(tier: Tier = "free", accessLevel = 50): number {
    const id = ++this.nextProject;
    this.tiers.set(id, tier);
    this.levels.set(id, accessLevel);
    return id;
  }

  integration(
    projectId: number,
    fields: Partial<IntegrationRuntime> & { mapping?: PayloadMapping | null } = {},
  ): IntegrationRuntime {
    const i: IntegrationRuntime = {
      id: this.nextIntegration++,
      projectId,
      name: "",
      type: "http",
      active: true,
      mapping: null,
      rateLimitPerMinute: null,
      autoResolveMinutes: null,
      ...fields,
    };
    this.integrations.set(i.id, i);
    return i;
  }

  private ref(id: number) {
    const tier = this.tiers.get(id);
    if (!tier) throw notFound("Project");
    return { id, fullPath: `group/project-${id}`, tier, accessLevel: this.levels.get(id) ?? 50 };
  }

  readonly projects: ProjectAccess = {
    require: async (idOrPath: string, minLevel: number) => {
      const ref = this.ref(Number(idOrPath));
      if (ref.accessLevel < minLevel) throw forbidden();
      return ref;
    },
    byId: async (id: number) => this.ref(id),
  };

  readonly directory: IntegrationDirectory = {
    get: async (projectId, integrationId) => {
      const i = this.integrations.get(integrationId);
      return i && i.projectId === projectId ? { ...i } : undefined;
    },
    opsgenieUrl: async (projectId) => this.opsgenie.get(projectId),
  };
}

export type StoreKind = "sqlite" | "mongo";
export type QueueKind = "local" | "bullmq";

export interface Harness {
  runtime: AlertsRuntime;
  world: FakeWorld;
  clock: FakeClock;
  /** Forgets a processed-job record, as if the process died before writing it. */
  dropJobRecord(jobId: string): Promise<void>;
  /** Reopens a runtime on the same data and queue (a restart). */
  restart(): Promise<AlertsRuntime>;
  close(): Promise<void>;
}

let ctxSeq = 0;
export const ctx = (label = "req"): CallContext => ({ requestId: `${label}-${process.pid}-${Date.now()}-${++ctxSeq}` });

export async function startHarness(
  store: StoreKind,
  queue: QueueKind,
  urls: { mongoUrl: string; redisUrl: string },
): Promise<Harness> {
  const world = new FakeWorld();
  const clock = new FakeClock();
  const dataDir = mkdtempSync(join(tmpdir(), "tocsin-alert-processing-"));
  const queuePrefix = `tocsin-test-${Math.random().toString(36).slice(2, 10)}`;
  const sqlite = store === "sqlite" ? new Database(join(dataDir, "alert.db")) : undefined;
  sqlite?.pragma("journal_mode = WAL");
  const client = store === "mongo" ? await MongoClient.connect(urls.mongoUrl) : undefined;
  const dbName = `tocsin_test_alertproc_${Math.random().toString(36).slice(2, 10)}`;
  const open = async () => {
    const rt = await createAlertsRuntime({
      ...(sqlite ? { sqlite } : { mongo: client?.db(dbName) }),
      dataDir,
      ...(queue === "bullmq" ? { redisUrl: urls.redisUrl, queuePrefix } : {}),
      projects: world.projects,
      integrations: world.directory,
      clock,
      logger: silentLogger(),
    });
    await rt.start();
    return rt;
  };
  const h: Harness = {
    runtime: await open(),
    world,
    clock,
    async dropJobRecord(jobId: string) {
      sqlite?.prepare("UPDATE alert_ops SET outcome = NULL WHERE op = ?").run(jobId);
      await client?.db(dbName).collection<{ _id: string }>("processed_jobs").deleteOne({ _id: jobId });
    },
    async restart() {
      await h.runtime.stop();
      h.runtime = await open();
      return h.runtime;
    },
    async close() {
      await h.runtime.stop();
      sqlite?.close();
      if (client) {
        await client.db(dbName).dropDatabase();
        await client.close();
      }
      if (queue === "bullmq") {
        const redis = new Redis(urls.redisUrl);
        const keys = await redis.keys(`${queuePrefix}:*`);
        if (keys.length) await redis.del(...keys);
        redis.disconnect();
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return h;
}
