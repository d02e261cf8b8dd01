import http from "node:http";
import https from "node:https";
import { IncomingWebhook } from "@slack/webhook";
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from "request-filtering-agent";
import type { AttemptResult, Sender } from "../domain/channels/ports.js";

export interface HttpSenderOptions {
  /** OUTBOUND_ALLOW_LOCAL_NETWORK: loopback, private and link-local addresses allowed. */
  allowLocalNetwork: boolean;
  /** One attempt's bound, connection to answer (10 s). */
  timeoutMs: number;
}

const USER_AGENT = "Tocsin-Webhook/1.0";

/** Retry-After as seconds or an HTTP date → ms (capped at a day); undefined when absent or unreadable. */
export function retryAfterMs(value: string | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const seconds = /^\s*\d+\s*$/.test(value) ? Number(value) * 1000 : Date.parse(value) - now;
  if (!Number.isFinite(seconds)) return undefined;
  return Math.min(Math.max(0, seconds), 24 * 3_600_000);
}

/**
 * The one way alert-service posts to a receiver (node:http, no redirects followed, the answer's
 * body discarded unread). Each connection goes through `request-filtering-agent`, which checks the
 * address after DNS resolution: loopback, private, link-local and meta addresses are refused
 * unless the local network is allowed. TLS is verified unless the destination turned it off.
 */
export function createHttpSender(opts: HttpSenderOptions): Sender {
  const filter = { allowPrivateIPAddress: opts.allowLocalNetwork, allowMetaIPAddress: opts.allowLocalNetwork };
  const agents = {
    http: new RequestFilteringHttpAgent({ ...filter, keepAlive: false }),
    https: new RequestFilteringHttpsAgent({ ...filter, keepAlive: false }),
    httpsUnverified: new RequestFilteringHttpsAgent({ ...filter, keepAlive: false, rejectUnauthorized: false }),
  };

  function post(url: URL, body: string, headers: Record<string, string>, verifyTls: boolean): Promise<AttemptResult> {
    const secure = url.protocol === "https:";
    const agent = secure ? (verifyTls ? agents.https : agents.httpsUnverified) : agents.http;
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    return new Promise((resolve) => {
      let done = false;
      const end = (result: AttemptResult) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        resolve(result);
      };
      const request = (secure ? https : http).request(
        url,
        {
          method: "POST",
          agent,
          headers: {
            ...headers,
            "content-type": "application/json",
            "content-length": String(Buffer.byteLength(body)),
            "user-agent": USER_AGENT,
          },
        },
        (res) => {
          const header = res.headers["retry-after"];
          const after = retryAfterMs(Array.isArray(header) ? header[0] : header);
          // The receiver's body is never read, logged or kept.
          res.destroy();
          end({ status: res.statusCode ?? 0, durationMs: elapsed(), ...(after !== undefined ? { retryAfterMs: after } : {}) });
        },
      );
      const timer = setTimeout(() => request.destroy(new Error("timeout")), opts.timeoutMs);
      request.on("error", (err) => end(failureOf(err, elapsed(), opts.timeoutMs)));
      request.end(body);
    });
  }

  return {
    async post(request) {
      let url: URL;
      try {
        url = new URL(request.url);
      } catch {
        return { status: null, failure: "refused", error: "invalid URL", durationMs: 0 };
      }
      if (!request.slack) return post(url, request.body, request.headers, request.verifyTls);
      // Slack posts go through Slack's own client; its transport is this one (the same address
      // filter, no redirects), so the answer seen here is the one the attempt is judged by.
      let result: AttemptResult | undefined;
      const webhook = new IncomingWebhook(request.url, {
        fetch: async (_input: unknown, init?: { body?: unknown }) => {
          result = await post(url, String(init?.body ?? ""), request.headers, request.verifyTls);
          if (result.status === null) throw new Error(result.error ?? "no answer");
          return new Response(null, { status: Math.min(599, Math.max(200, result.status)) });
        },
      } as ConstructorParameters<typeof IncomingWebhook>[1]);
      await webhook.send(JSON.parse(request.body)).catch(() => undefined);
      return result ?? { status: null, failure: "connection", error: "no request was made", durationMs: 0 };
    },
  };
}

function failureOf(err: Error & { code?: string }, durationMs: number, timeoutMs: number): AttemptResult {
  if (err.message === "timeout")
    return { status: null, failure: "timeout", error: `no answer within ${timeoutMs} ms`, durationMs };
  if (err.message.includes("is not allowed"))
    return { status: null, failure: "refused", error: "refused: the address is in a local network", durationMs };
  return { status: null, failure: "connection", error: `connection failed${err.code ? ` (${err.code})` : ""}`, durationMs };
}
