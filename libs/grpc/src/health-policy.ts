import { type Logger, withTimeout } from "@tocsin/core";
import { createHealthChecker } from "./health-client.js";
import type { GrpcServer } from "./server.js";

/** One thing a service needs in order to serve: its store, its queue, a service it calls. */
export interface HealthCheck {
  name: string;
  /** Resolves when healthy; rejects (or resolves false) when not. */
  check(): Promise<unknown>;
  /** Releases what the check holds (e.g. a gRPC channel). */
  close?(): void;
}

export interface HealthPolicyOptions {
  logger: Logger;
  /** Re-check period while SERVING. */
  intervalMs?: number;
  /** Re-check period while NOT_SERVING (recovery is noticed sooner than a failure). */
  retryMs?: number;
  /** Bound on one check. */
  checkTimeoutMs?: number;
}

export interface HealthPolicy {
  /** Whether the last round passed. */
  serving(): boolean;
  /** Stops re-checking and closes the checks; the server's own shutdown goes NOT_SERVING. */
  stop(): void;
}

/**
 * The one health policy of every service: `grpc.health.v1` says SERVING while every check (the
 * store, then each dependency) passes, and is re-checked on a timer, so health follows the store
 * and the dependencies both ways. The first round is awaited, so a service is SERVING when its
 * `createXService` resolves if everything it needs answers already.
 */
export async function startHealthPolicy(
  server: Pick<GrpcServer, "setServing">,
  checks: HealthCheck[],
  options: HealthPolicyOptions,
): Promise<HealthPolicy> {
  const { logger, intervalMs = 1_000, retryMs = 1_000, checkTimeoutMs = 1_000 } = options;
  let ok = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const round = async () => {
    const results = await Promise.all(
      checks.map((c) =>
        withTimeout(Promise.resolve(c.check()), checkTimeoutMs).then(
          (res) => (res === false ? c.name : undefined),
          () => c.name,
        ),
      ),
    );
    if (stopped) return;
    const failing = results.filter((name): name is string => name !== undefined);
    const now = failing.length === 0;
    if (now !== ok) {
      if (now) logger.info("SERVING: the store and every dependency answer");
      else logger.warn({ failing }, `NOT_SERVING: ${failing.join(", ")} not answering`);
    }
    ok = now;
    server.setServing(ok);
    timer = setTimeout(() => void round(), ok ? intervalMs : retryMs);
    timer.unref();
  };
  await round();
  return {
    serving: () => ok,
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      for (const c of checks) c.close?.();
    },
  };
}

/** A dependency on another Tocsin service: healthy while its `grpc.health.v1` says SERVING. */
export function serviceDependency(name: string, address: string, timeoutMs = 1_000): HealthCheck {
  const checker = createHealthChecker(address);
  return {
    name,
    check: async () => (await checker.check(timeoutMs)) === "SERVING",
    close: () => checker.close(),
  };
}
