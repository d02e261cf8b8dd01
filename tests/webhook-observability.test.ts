import { request } from "node:http";
import { captureLogger, until } from "@tocsin/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api } from "./api.js";
import { bootGateway, type RunningSystem, startSystem } from "./harness.js";
import { seedProject } from "./seed.js";
import { requestFrom } from "./webhook-protection.js";

/**
 * The webhook's own handler (gateway/src/webhook/handler.ts, in front of express): its metrics,
 * its log as docs/operations.md "Logging" says, the client address behind a proxy, and the drain on stop.
 * Its answers are covered by the other webhook suites.
 */
describe("webhook handler: metrics, log, client address, drain", () => {
  let system: RunningSystem;
  let gateway: Awaited<ReturnType<typeof bootGateway>>;
  let path: string;
  let token: string;
  const capture = captureLogger("info");
  const gatewayEnv = () => ({
    PORT: "0",
    LOG_LEVEL: "info",
    AUTH_SERVICE_ADDR: system.authAddr,
    ALERT_SERVICE_ADDR: system.alertAddr,
    SETTINGS_SERVICE_ADDR: system.settingsAddr,
    WEBHOOK_LOG_SUMMARY_SECONDS: "1",
    TRUST_PROXY: "loopback",
  });
  beforeAll(async () => {
    system = await startSystem();
    const project = await seedProject(system.url, system.adminToken, { path: "observed" });
    const created = await api(system.url, system.adminToken).post(
      `/api/v4/projects/${project.id}/alert_management/http_integrations`,
      { name: "Main", active: true },
    );
    path = new URL(created.body.url).pathname;
    token = created.body.token;
    // A gateway of its own (same services), to capture its log alone and to stop it in a test.
    gateway = await bootGateway(gatewayEnv(), { logger: capture.logger });
  });
  afterAll(async () => {
    await gateway.stop();
    await system.stop();
  });

  const post = (headers: Record<string, string>, body = JSON.stringify({ title: "observed" })) =>
    requestFrom("127.0.0.1", `${gateway.url}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, ...headers },
      body,
    });
  const countOf = async (status: number) => {
    const text = await (await fetch(`${gateway.url}/metrics`)).text();
    const line = text
      .split("\n")
      .find((l) => l.startsWith(`http_requests_total{method="POST",route="/\\\\/alerts\\\\/notify/",status="${status}"}`));
    return line ? Number(line.split(" ")[1]) : 0;
  };

  it("counts webhook posts by status in http_requests_total, and times them", async () => {
    const [accepted, unauthorized] = [await countOf(202), await countOf(401)];
    for (let i = 0; i < 3; i++) expect((await post({})).status).toBe(202);
    expect((await post({ authorization: "Bearer wrong-key-xyz" })).status).toBe(401);
    expect(await countOf(202)).toBe(accepted + 3);
    expect(await countOf(401)).toBe(unauthorized + 1);
    const text = await (await fetch(`${gateway.url}/metrics`)).text();
    expect(text).toMatch(
      /http_request_duration_seconds_count\{method="POST",route="\/\\\\\/alerts\\\\\/notify\/",status="202"\} \d+/,
    );
  });

  it("logs refusals and a summary, not a line per accepted post (docs/operations.md, Logging)", async () => {
    for (let i = 0; i < 4; i++) expect((await post({ "x-request-id": `observed-accepted-${i}` })).status).toBe(202);
    const refused = await post({ "x-request-id": "observed-refused", "content-type": "text/plain" });
    expect(refused.status).toBe(400);
    const gatewayLines = () => capture.lines().filter((l) => typeof l.requestId === "string" || l.msg === "webhook requests");
    const refusal = await until(() => gatewayLines().find((l) => l.requestId === "observed-refused"), 5_000);
    expect(refusal).toMatchObject({ msg: "request refused", status: 400, reason: "WEBHOOK_REQUEST_INVALID", path });
    // The summaries (one a second) add up to every post of this test and the one before.
    const summed = await until(() => {
      const totals = new Map<string, number>();
      for (const l of gatewayLines().filter((x) => x.msg === "webhook requests"))
        for (const [status, n] of Object.entries(l.statuses as Record<string, number>))
          totals.set(status, (totals.get(status) ?? 0) + n);
      return (totals.get("202") ?? 0) >= 7 && (totals.get("400") ?? 0) >= 1 ? totals : false;
    }, 10_000);
    expect(summed.get("202")).toBe(7);
    expect(summed.get("401")).toBe(1);
    expect(gatewayLines().some((l) => String(l.requestId).startsWith("observed-accepted-"))).toBe(false);
    expect(capture.text()).not.toContain("wrong-key-xyz");
  });

  it("reports alert-service's backlog as tocsin_alert_backlog, 0 once the posts are processed", async () => {
    for (let i = 0; i < 5; i++) expect((await post({}, JSON.stringify({ title: `backlog ${i}` }))).status).toBe(202);
    const backlog = async () => {
      const text = await (await fetch(`${gateway.url}/metrics`)).text();
      return text.split("\n").find((l) => l.startsWith("tocsin_alert_backlog "));
    };
    // A number read from the real alert-service (NaN would mean it did not answer).
    await until(async () => (await backlog()) === "tocsin_alert_backlog 0", 20_000);
  });

  it("with TRUST_PROXY, counts failed keys per X-Forwarded-For address", async () => {
    const wrong = (forwardedFor: string) => post({ authorization: "Bearer wrong-key-xyz", "x-forwarded-for": forwardedFor });
    for (let i = 0; i < 101; i++) await wrong("203.0.113.7");
    expect((await wrong("203.0.113.7")).status).toBe(429);
    expect((await post({ "x-forwarded-for": "203.0.113.7" })).status).toBe(429);
    expect((await post({ "x-forwarded-for": "203.0.113.8" })).status).toBe(202);
  });

  it("answers a post in flight when the gateway stops (Connection: close), then stops", async () => {
    const own = await bootGateway(gatewayEnv(), { logger: capture.logger });
    const body = JSON.stringify({ title: "in flight at stop" });
    let stopped: Promise<void> | undefined;
    const answer = await new Promise<{ status: number; connection?: string; text: string }>((resolve, reject) => {
      const req = request(`${own.url}${path}`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          authorization: `Bearer ${token}`,
          "content-length": String(Buffer.byteLength(body)),
          expect: "100-continue",
        },
      });
      req.on("error", reject);
      req.on("response", (res) => {
        let text = "";
        res.on("data", (c: Buffer) => {
          text += c.toString();
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, text }));
      });
      // 100 Continue: the gateway has taken the request; stop it, then send the body.
      req.on("continue", () => {
        stopped = own.stop();
        req.end(body);
      });
      req.flushHeaders();
    });
    expect(answer.status).toBe(202);
    expect(answer.connection).toBe("close");
    expect(JSON.parse(answer.text)).toMatchObject({ status: "accepted" });
    await stopped;
    await expect(fetch(`${own.url}/-/health`)).rejects.toThrow();
  });
});
