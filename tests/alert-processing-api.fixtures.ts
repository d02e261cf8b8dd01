import { AppError, silentLogger } from "@tocsin/core";
import { createClient, createGrpcServer, type ServiceHandlers } from "@tocsin/grpc";
import { alertV1, PROTO_FILES } from "@tocsin/proto";
import { alertHandlers } from "../alert-service/src/handlers/alerts.js";
import { ctx, type Harness, startHarness } from "./alert-processing.fixtures.js";

/**
 * The fixture of the alert use-case suites over real gRPC (tests/alert-processing-api-alerts.test.ts
 * and tests/alert-processing-api-test-alerts.test.ts): alert-service's gRPC server in front of the
 * harness's use-cases, its client, and the helpers their tests share.
 */

/** The alerts list filters of issue 26 (severity, monitoring tool, service), unset. */
export const NO_FILTERS = { severity: "", monitoringTool: "", service: "" };

type Def = typeof alertV1.AlertServiceService;
const def = alertV1.AlertServiceService;
export type AlertClient = ReturnType<typeof createClient<Def>>;
type GrpcServer = ReturnType<typeof createGrpcServer>;

export async function failure(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (err) {
    if (AppError.is(err)) return err;
    throw err;
  }
  throw new Error("expected a failure");
}

/** A gRPC server for alert.v1.AlertService alone, not listening yet. */
function createAlertServer(): GrpcServer {
  return createGrpcServer({
    logger: silentLogger(),
    protoFiles: [PROTO_FILES.alert],
    serviceNames: ["alert.v1.AlertService"],
  });
}

/** Serves the harness's use-cases on a free port (every other RPC is UNIMPLEMENTED); a client of it. */
async function serveUseCases(server: GrpcServer, h: Harness): Promise<AlertClient> {
  const unimplemented = async () => {
    throw new AppError("UNIMPLEMENTED", "UNIMPLEMENTED", "501 Not Implemented");
  };
  const all = Object.fromEntries(Object.keys(def).map((k) => [k, unimplemented]));
  server.add(def, { ...all, ...alertHandlers(h.runtime.useCases) } as unknown as ServiceHandlers<Def>);
  const port = await server.listen("127.0.0.1:0");
  server.setServing(true);
  return createClient(def, { target: "alert", address: `127.0.0.1:${port}` });
}

/**
 * The suites' system: the harness (SQLite, SQLite queue, no Redis) and its use-cases served over
 * gRPC with a client; `start` in beforeAll, `stop` in afterAll (safe after a failed start).
 */
export function servedUseCases() {
  const server = createAlertServer();
  let h: Harness | undefined;
  let client: AlertClient | undefined;
  return {
    async start(): Promise<{ h: Harness; client: AlertClient }> {
      h = await startHarness("sqlite", "local", { mongoUrl: "", redisUrl: "" });
      client = await serveUseCases(server, h);
      return { h, client };
    },
    async stop(): Promise<void> {
      client?.close();
      await server.shutdown(1000);
      await h?.close();
    },
  };
}

/** IngestAlert through the client that `client()` returns (set in beforeAll); waits up to 5 s unless told. */
export const ingestVia =
  (client: () => AlertClient) =>
  (projectId: number, integrationId: number, payload: unknown, extra: Partial<alertV1.IngestAlertRequest> = {}) =>
    client().ingestAlert(
      {
        projectId,
        integrationId,
        payloadJson: JSON.stringify(payload),
        idempotencyKey: "",
        receivedAt: undefined,
        waitMs: 5000,
        tier: "",
        ...extra,
      },
      ctx(),
    );
