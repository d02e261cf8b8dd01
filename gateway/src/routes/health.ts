import { createHealthChecker, type HealthStatus } from "@tocsin/grpc";
import { Router } from "express";
import type { Registry } from "prom-client";
import type { GatewayDeps } from "../deps.js";

const READINESS_TIMEOUT_MS = 1000;
const RETRY_AFTER_SECONDS = "5";

/** `/-/health` (the process is up), `/-/readiness` (the three services answer), `/metrics`. */
export function healthRoutes(deps: GatewayDeps, registry: Registry): Router {
  const router = Router();
  const checkers = {
    auth: createHealthChecker(deps.config.authServiceAddr),
    alert: createHealthChecker(deps.config.alertServiceAddr),
    settings: createHealthChecker(deps.config.settingsServiceAddr),
  };
  deps.closers.push(() => {
    for (const checker of Object.values(checkers)) checker.close();
  });

  router.get("/-/health", (_req, res) => {
    res.json({ status: "ok" });
  });

  router.get("/-/readiness", async (_req, res) => {
    const entries = await Promise.all(
      Object.entries(checkers).map(async ([name, checker]) => [name, await checker.check(READINESS_TIMEOUT_MS)] as const),
    );
    const dependencies = Object.fromEntries(entries) as Record<string, HealthStatus>;
    const ready = entries.every(([, status]) => status === "SERVING");
    if (!ready) res.status(503).set("Retry-After", RETRY_AFTER_SECONDS);
    res.json({ status: ready ? "ok" : "unavailable", dependencies });
  });

  router.get("/metrics", async (_req, res) => {
    res.set("Content-Type", registry.contentType).send(await registry.metrics());
  });

  return router;
}
