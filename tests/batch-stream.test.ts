import { AppError, silentLogger } from "@tocsin/core";
import {
  createBatchStream,
  createClient,
  createGrpcServer,
  fromItemError,
  STREAM_DRAINING_REASON,
  toItemError,
} from "@tocsin/grpc";
import { alertV1, PROTO_FILES } from "@tocsin/proto";
import { until } from "@tocsin/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

type Item = alertV1.IngestAlertsItem;
type Result = alertV1.IngestAlertsResult;
const def = { ingestAlerts: alertV1.AlertServiceService.ingestAlerts };

/**
 * A real gRPC server whose IngestAlerts handler does what each item's request id says: `ok`
 * answers, `drain` refuses it as a draining server does, `end` ends the stream cleanly without
 * answering, `silent` never answers, `bad` answers with an error.
 */
function testServer() {
  const seen = { streams: 0, cancelled: 0, messages: [] as number[], items: [] as string[] };
  const server = createGrpcServer({ logger: silentLogger(), protoFiles: [PROTO_FILES.alert], serviceNames: [] });
  server.add(def, {
    ingestAlerts: (_ctx, stream) =>
      new Promise<void>((resolve) => {
        seen.streams++;
        stream.onCancel(() => {
          seen.cancelled++;
          resolve();
        });
        stream.onEnd(resolve);
        stream.onMessage((m) => {
          seen.messages.push(m.items.length);
          const results: Result[] = [];
          for (const item of m.items) {
            seen.items.push(item.requestId);
            const kind = item.requestId.split(":")[0];
            if (kind === "ok") results.push({ seq: item.seq, accepted: answer(item.requestId) });
            if (kind === "bad")
              results.push({ seq: item.seq, error: toItemError(new AppError("INVALID_ARGUMENT", "PAYLOAD_INVALID", "bad")) });
            if (kind === "drain")
              results.push({
                seq: item.seq,
                error: toItemError(new AppError("UNAVAILABLE", STREAM_DRAINING_REASON, "503 Service Unavailable")),
              });
            if (kind === "end") resolve();
          }
          if (results.length > 0) stream.write({ results });
        });
      }),
  });
  return { server, seen };
}

const answer = (requestId: string): alertV1.IngestAlertResponse => ({
  requestId,
  fingerprints: [],
  outcomes: [],
  processed: false,
  replayed: false,
  rateLimit: undefined,
});

describe("createBatchStream over a real gRPC stream", () => {
  const { server, seen } = testServer();
  let address = "";
  beforeAll(async () => {
    address = `127.0.0.1:${await server.listen("127.0.0.1:0")}`;
  });
  afterAll(() => server.shutdown(1000));

  const open = (maxBatch?: number) => {
    const client = createClient(alertV1.AlertServiceService, { target: "alert", address });
    const stream = createBatchStream<Item, Result, alertV1.IngestAlertResponse>({
      open: () => client.duplex("ingestAlerts", { requestId: "stream" }),
      target: "alert",
      settle: (r) => r.accepted ?? (r.error ? fromItemError(r.error) : new AppError("INTERNAL", "EMPTY", "empty")),
      ...(maxBatch ? { maxBatch } : {}),
    });
    const close = () => {
      stream.close();
      client.close();
    };
    return { stream, close };
  };
  const item = (requestId: string) => ({ requestId, userId: 0, timeoutMs: 5000, alert: undefined });
  const failure = (p: Promise<unknown>) =>
    p.then(
      () => undefined,
      (e: unknown) => e as AppError,
    );

  it("sends the calls of one turn as one message (at most maxBatch items) and settles each from its result", async () => {
    const { stream, close } = open(4);
    try {
      const before = seen.messages.length;
      const calls = ["ok:1", "bad:2", "ok:3", "ok:4", "ok:5", "ok:6"].map((id) => stream.call(item(id), 5000).catch((e) => e));
      const out = await Promise.all(calls);
      expect(out.map((o) => (o instanceof AppError ? o.reason : o.requestId))).toEqual([
        "ok:1",
        "PAYLOAD_INVALID",
        "ok:3",
        "ok:4",
        "ok:5",
        "ok:6",
      ]);
      expect(seen.messages.slice(before)).toEqual([4, 2]);
      expect(stream.inFlight()).toBe(0);
    } finally {
      close();
    }
  });

  it("sends an item a draining server refused once more, on a new stream; refused twice, it fails UNAVAILABLE", async () => {
    const { stream, close } = open();
    try {
      const streams = seen.streams;
      // The first attempt is refused; the resend (same request id) is refused as well.
      const err = await failure(stream.call(item("drain:twice"), 5000));
      expect(err).toMatchObject({ code: "UNAVAILABLE", reason: STREAM_DRAINING_REASON });
      expect(seen.items.filter((i) => i === "drain:twice")).toHaveLength(2);
      expect(seen.streams - streams).toBe(2);
      expect(stream.inFlight()).toBe(0);
    } finally {
      close();
    }
  });

  it("sends items still unanswered at a clean end of the stream once more, on a new stream", async () => {
    const { stream, close } = open();
    try {
      const streams = seen.streams;
      // `end:` ends the stream without answering; the other item of that message is then resent.
      const [ended, other] = await Promise.all([
        failure(stream.call(item("end:1"), 5000)),
        stream.call(item("ok:with-end"), 5000).catch((e: unknown) => e),
      ]);
      expect(ended).toMatchObject({ code: "UNAVAILABLE", reason: "ALERT_UNAVAILABLE" });
      expect(other).toMatchObject({ requestId: "ok:with-end" });
      expect(seen.streams - streams).toBeGreaterThanOrEqual(2);
    } finally {
      close();
    }
  });

  it("fails an unanswered item at its deadline, cancels the silent stream, and the next item opens another", async () => {
    const { stream, close } = open();
    try {
      const cancelled = seen.cancelled;
      const streams = seen.streams;
      const err = await failure(stream.call(item("silent:1"), 200));
      expect(err).toMatchObject({ code: "UNAVAILABLE", reason: "ALERT_DEADLINE_EXCEEDED" });
      await until(() => seen.cancelled > cancelled);
      expect(await stream.call(item("ok:next"), 5000)).toMatchObject({ requestId: "ok:next" });
      expect(seen.streams - streams).toBe(2);
    } finally {
      close();
    }
  });

  it("fails what is in flight with UNAVAILABLE on close, and later calls at once", async () => {
    const { stream, close } = open();
    const pending = failure(stream.call(item("silent:close"), 5000));
    await until(() => seen.items.includes("silent:close"));
    close();
    expect(await pending).toMatchObject({ code: "UNAVAILABLE" });
    expect(await failure(stream.call(item("ok:after"), 5000))).toMatchObject({ code: "UNAVAILABLE" });
    expect(stream.inFlight()).toBe(0);
  });
});
