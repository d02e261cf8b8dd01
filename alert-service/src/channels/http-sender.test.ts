import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verdictOf } from "../domain/channels/delivery.js";
import { createHttpSender, retryAfterMs } from "./http-sender.js";

/** The sender against a real receiver: what an attempt sees, and the local-network refusals. */
describe("http sender", () => {
  let server: Server;
  let base: string;
  const hits: string[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      hits.push(req.url ?? "");
      req.resume();
      if (req.url === "/hang") return;
      if (req.url === "/redirect") {
        res.writeHead(302, { location: `${base}/target` });
        return res.end();
      }
      if (req.url === "/busy") {
        res.writeHead(429, { "retry-after": "7" });
        return res.end("slow down");
      }
      res.writeHead(req.url === "/gone" ? 410 : 200);
      res.end("ok");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  const local = createHttpSender({ allowLocalNetwork: true, timeoutMs: 300 });
  const post = (url: string, slack = false) => local.post({ url, body: '{"text":"hi"}', headers: {}, verifyTls: true, slack });

  it("judges answers: 2xx delivered, 429 with Retry-After retried, 410 gone, a redirect failed and not followed", async () => {
    expect(verdictOf(await post(`${base}/ok`))).toBe("delivered");
    expect(verdictOf(await post(`${base}/ok`, true))).toBe("delivered");
    const busy = await post(`${base}/busy`);
    expect(busy).toMatchObject({ status: 429, retryAfterMs: 7000 });
    expect(verdictOf(busy)).toBe("retry");
    expect(verdictOf(await post(`${base}/gone`, true))).toBe("gone");
    const redirect = await post(`${base}/redirect`);
    expect(redirect.status).toBe(302);
    expect(verdictOf(redirect)).toBe("failed");
    expect(hits).not.toContain("/target");
  });

  it("gives up on a receiver that does not answer within the timeout (retried)", async () => {
    const result = await post(`${base}/hang`);
    expect(result).toMatchObject({ status: null, failure: "timeout" });
    expect(verdictOf(result)).toBe("retry");
  });

  it("refuses loopback, private, link-local and names resolving to them without OUTBOUND_ALLOW_LOCAL_NETWORK", async () => {
    const guarded = createHttpSender({ allowLocalNetwork: false, timeoutMs: 2000 });
    const port = new URL(base).port;
    const before = hits.length;
    for (const url of [
      `${base}/ok`,
      `http://localhost:${port}/ok`,
      "https://10.0.0.1/hook",
      "https://169.254.169.254/latest/meta-data",
      "https://[::1]/hook",
    ]) {
      for (const slack of [false, true]) {
        const result = await guarded.post({ url, body: "{}", headers: {}, verifyTls: true, slack });
        expect(result, url).toMatchObject({ status: null, failure: "refused" });
        expect(verdictOf(result)).toBe("failed");
      }
    }
    expect(hits.length).toBe(before);
  });

  it("reads Retry-After as seconds or an HTTP date", () => {
    expect(retryAfterMs("3")).toBe(3000);
    expect(retryAfterMs(new Date(10_000).toUTCString(), 4_000)).toBe(6000);
    expect(retryAfterMs("soon")).toBeUndefined();
    expect(retryAfterMs(undefined)).toBeUndefined();
  });
});
