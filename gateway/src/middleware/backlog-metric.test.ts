import { silentLogger } from "@tocsin/core";
import { createClient } from "@tocsin/grpc";
import { alertV1 } from "@tocsin/proto";
import { type StubServer, startStubServer } from "@tocsin/testing";
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerBacklogMetric } from "./backlog-metric.js";

type AlertDef = typeof alertV1.AlertServiceService;

const stats = (pending: number): alertV1.GetIngestStatsResponse => ({
  pending,
  processed: 1_000,
  failed: 2,
  held: 3,
  heldMs: 4,
  heldOverdue: 0,
});

const backlogLine = async (registry: Registry) =>
  (await registry.metrics()).split("\n").find((l) => l.startsWith("tocsin_alert_backlog "));

describe("tocsin_alert_backlog", () => {
  let pending = 42;
  /** While set, GetIngestStats answers only once it is resolved. */
  let gate: Promise<void> | undefined;
  let service: StubServer;
  let client: ReturnType<typeof createClient<AlertDef>>;
  const registry = new Registry();

  beforeAll(async () => {
    // alert-service over real gRPC: GetIngestStats answers, every other RPC is UNIMPLEMENTED.
    service = await startStubServer("alert", {
      async getIngestStats() {
        await gate;
        return stats(pending);
      },
    });
    // A client deadline far past the test's: only the scrape's own deadline can end a held call in time.
    client = createClient(alertV1.AlertServiceService, { target: "alert", address: service.address, timeoutMs: 600_000 });
    registerBacklogMetric(registry, client, silentLogger());
  });
  afterAll(async () => {
    client?.close();
    await service?.stop();
  });

  it("is alert-service's pending count, read at each scrape", async () => {
    expect(await backlogLine(registry)).toBe("tocsin_alert_backlog 42");
    pending = 0;
    expect(await backlogLine(registry)).toBe("tocsin_alert_backlog 0");
    pending = 5_000;
    expect(await backlogLine(registry)).toBe("tocsin_alert_backlog 5000");
  });

  it("is NaN when alert-service does not answer within a second, and the scrape still answers", { timeout: 10_000 }, async () => {
    let release: () => void = () => undefined;
    gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    try {
      // Without the scrape's own deadline this would wait for the gate, and the test time out.
      // prom-client writes NaN as `Nan`; Prometheus reads it either way.
      expect(await backlogLine(registry)).toMatch(/^tocsin_alert_backlog nan$/i);
    } finally {
      gate = undefined;
      release();
    }
    pending = 7;
    expect(await backlogLine(registry)).toBe("tocsin_alert_backlog 7");
  });
});
