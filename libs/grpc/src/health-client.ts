import { type Client, credentials, makeGenericClientConstructor, type ServiceDefinition, type ServiceError } from "@grpc/grpc-js";
import { service as healthService } from "grpc-health-check";
import { channelTarget } from "./target.js";

/** SERVING / NOT_SERVING / UNKNOWN as the service says, or UNREACHABLE when it did not answer. */
export type HealthStatus = "SERVING" | "NOT_SERVING" | "UNKNOWN" | "SERVICE_UNKNOWN" | "UNREACHABLE";

export interface HealthChecker {
  /** Asks `grpc.health.v1.Health/Check` (overall status) with a deadline; never throws. */
  check(timeoutMs: number): Promise<HealthStatus>;
  close(): void;
}

type HealthClient = Client & {
  check(
    req: { service: string },
    opts: { deadline: Date },
    cb: (err: ServiceError | null, res?: { status?: unknown }) => void,
  ): void;
};

const HealthClientCtor = makeGenericClientConstructor(healthService as unknown as ServiceDefinition, "Health");

/** A grpc.health.v1 client for readiness probes (one channel, reused across checks). */
export function createHealthChecker(address: string): HealthChecker {
  const { target, options } = channelTarget(address);
  const client = new HealthClientCtor(target, credentials.createInsecure(), options) as unknown as HealthClient;
  return {
    check(timeoutMs) {
      return new Promise((resolve) => {
        client.check({ service: "" }, { deadline: new Date(Date.now() + timeoutMs) }, (err, res) => {
          if (err) resolve("UNREACHABLE");
          else resolve(normalise(res?.status));
        });
      });
    },
    close() {
      client.close();
    },
  };
}

function normalise(status: unknown): HealthStatus {
  if (status === "SERVING" || status === 1) return "SERVING";
  if (status === "NOT_SERVING" || status === 2) return "NOT_SERVING";
  if (status === "SERVICE_UNKNOWN" || status === 3) return "SERVICE_UNKNOWN";
  return "UNKNOWN";
}
