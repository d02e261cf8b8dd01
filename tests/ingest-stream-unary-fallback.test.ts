import { silentLogger } from "@tocsin/core";
import { createClient, createGrpcServer } from "@tocsin/grpc";
import { alertV1, PROTO_FILES } from "@tocsin/proto";
import { describe, expect, it } from "vitest";
import { createIngestBatcher } from "../gateway/src/clients/ingest-batcher.js";
import { type Alert, ctx, request } from "./ingest-stream.fixtures.js";

/**
 * The gateway's IngestAlerts batcher against an alert-service without the stream (an older
 * version): it falls back to the unary call. The stream itself: tests/ingest-stream-process.test.ts
 * and tests/ingest-stream-replicas.test.ts.
 */

describe("IngestAlerts against an alert-service without it (an older version)", () => {
  it("makes the call unary instead, and keeps doing so", async () => {
    const served: string[] = [];
    const server = createGrpcServer({ logger: silentLogger(), protoFiles: [PROTO_FILES.alert], serviceNames: [] });
    server.add(
      { ingestAlert: alertV1.AlertServiceService.ingestAlert },
      {
        async ingestAlert(_req, callCtx) {
          served.push(callCtx.requestId);
          return {
            requestId: callCtx.requestId,
            fingerprints: [],
            outcomes: [],
            processed: false,
            replayed: false,
            rateLimit: undefined,
          };
        },
      },
    );
    const address = `127.0.0.1:${await server.listen("127.0.0.1:0")}`;
    const alert: Alert = createClient(alertV1.AlertServiceService, { target: "alert", address });
    const batcher = createIngestBatcher(alert, { timeoutMs: 5000, streams: 1 });
    try {
      const body = request(1, 1, JSON.stringify({ title: "old" }));
      expect(await batcher.submit(body, ctx("old-1"))).toMatchObject({ requestId: "old-1" });
      expect(await batcher.submit(body, ctx("old-2"))).toMatchObject({ requestId: "old-2" });
      expect(served).toEqual(["old-1", "old-2"]);
    } finally {
      batcher.close();
      alert.close();
      await server.shutdown(1000);
    }
  });
});
