import { captureLogger } from "@tocsin/testing";
import { describe, expect, it } from "vitest";
import { createWebhookLog } from "./webhook-log.js";

const accepted = (n: number, durationMs = 1) => ({
  requestId: `acc-${n}`,
  path: "/g/p/alerts/notify.json",
  status: 202,
  durationMs,
});
const refused = (n: number, status = 401, reason = "WEBHOOK_UNAUTHORIZED") => ({
  requestId: `ref-${n}`,
  path: "/g/p/alerts/notify.json",
  status,
  durationMs: 1,
  refusal: { status, reason, unexpected: false },
});

// README.md "Logging", the webhook's table, line by line.
describe("webhook log", () => {
  it("summary mode: no line per accepted post or 429; refusals and 5xx each a line; a summary on close", () => {
    const log = captureLogger("info");
    const webhook = createWebhookLog(log.logger, 10);
    for (let i = 0; i < 5; i++) webhook.request(accepted(i, i === 3 ? 42 : 1));
    webhook.request(refused(1, 429, "WEBHOOK_RATE_LIMITED"));
    webhook.request(refused(2, 401));
    webhook.request(refused(3, 400, "WEBHOOK_REQUEST_INVALID"));
    webhook.request({ ...refused(4, 503, "SERVICE_UNAVAILABLE") });
    const cause = new Error("disk on fire");
    webhook.request({
      ...refused(5, 500),
      refusal: { status: 500, reason: "INTERNAL", unexpected: true },
      error: cause,
    });
    expect(log.lines().map((l) => [l.requestId, l.msg])).toEqual([
      ["ref-2", "request refused"],
      ["ref-3", "request refused"],
      ["ref-4", "request failed"],
      ["ref-5", "webhook failed"],
    ]);
    const lines = log.lines();
    expect(lines[0]).toMatchObject({
      level: 30,
      method: "POST",
      status: 401,
      reason: "WEBHOOK_UNAUTHORIZED",
      route: "/\\/alerts\\/notify/",
    });
    expect(lines[2]).toMatchObject({ level: 40, status: 503 });
    expect(lines[3]).toMatchObject({ level: 50, status: 500, err: { message: "disk on fire" } });
    webhook.close();
    const summary = log.lines().at(-1);
    expect(summary).toMatchObject({
      msg: "webhook requests",
      level: 30,
      requests: 10,
      statuses: { 202: 5, 429: 1, 401: 1, 400: 1, 503: 1, 500: 1 },
      unloggedRefusals: 0,
      longest: { requestId: "acc-3", durationMs: 42 },
    });
    // Nothing more, and no empty summary after it.
    webhook.close();
    expect(log.lines()).toHaveLength(5);
  });

  it("writes at most 10 refusal lines a second and counts the rest in the summary", () => {
    const log = captureLogger("info");
    let now = 5_000;
    const webhook = createWebhookLog(log.logger, 10, () => now);
    for (let i = 0; i < 15; i++) webhook.request(refused(i));
    expect(log.lines()).toHaveLength(10);
    now += 1_000;
    webhook.request(refused(99));
    expect(log.lines()).toHaveLength(11);
    webhook.close();
    expect(log.lines().at(-1)).toMatchObject({ requests: 16, statuses: { 401: 16 }, unloggedRefusals: 5 });
  });

  it("at debug level, accepted posts and 429s get a debug line too", () => {
    const log = captureLogger("debug");
    const webhook = createWebhookLog(log.logger, 10);
    webhook.request(accepted(1));
    webhook.request(refused(2, 429, "WEBHOOK_RATE_LIMITED"));
    expect(log.lines().map((l) => [l.requestId, l.level, l.msg])).toEqual([
      ["acc-1", 20, "request completed"],
      ["ref-2", 20, "request completed"],
    ]);
    webhook.close();
  });

  it("WEBHOOK_LOG_SUMMARY_SECONDS=0: one access line per request, as every other route, and no summary", () => {
    const log = captureLogger("info");
    const webhook = createWebhookLog(log.logger, 0);
    webhook.request(accepted(1));
    webhook.request(refused(2, 429, "WEBHOOK_RATE_LIMITED"));
    webhook.request(refused(3, 503, "SERVICE_UNAVAILABLE"));
    webhook.close();
    expect(log.lines().map((l) => [l.requestId, l.level, l.msg, l.status])).toEqual([
      ["acc-1", 30, "request completed", 202],
      ["ref-2", 30, "request completed", 429],
      ["ref-3", 40, "request failed", 503],
    ]);
  });
});
