// Alert intake benchmark helper: an open-loop, evenly paced load generator for the fixed-rate runs.
//
// Why not autocannon's `overallRate`: autocannon 8 lets each connection send its whole quota for
// the second back to back and then waits for the next second, so "1,000/s" arrives as a burst at
// the start of each second; and its coordinated-omission correction uses an expected interval of
// ceil(1/rate) = 1 ms, which adds synthetic samples to every response slower than 1 ms. Both
// inflate p99 (a plain node:http server shows 70–280 ms p99 at 1,000/s that way on this machine).
//
// Here a 1 ms timer sends whatever is due (rate × elapsed − sent), so requests leave evenly; the
// latency of each request is counted from the moment it was handed to the HTTP agent, not from
// when a socket became free (a request waiting for a busy connection counts that wait: the
// coordinated-omission-safe figure). The generator's own lateness (timer jitter, ≥ 1 ms) is
// reported apart as `lagP99`, not added to the latency.
import { Agent, request } from "node:http";
import { performance } from "node:perf_hooks";
import { quantile } from "./alert-load.mjs";

const TICK_MS = 1;

function post(agent, url, headers, body) {
  return new Promise((resolve) => {
    const req = request(
      url,
      { method: "POST", agent, headers: { ...headers, "content-length": Buffer.byteLength(body) }, timeout: 10_000 },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
        res.on("error", () => resolve(0));
      },
    );
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.on("error", () => resolve(0));
    req.end(body);
  });
}

/**
 * Offers `rate` requests/s for `seconds` to `url` (POST, `body()` per request); at most
 * `maxInFlight` at once (requests beyond that are counted as `dropped`, not sent), over at most
 * `sockets` keep-alive connections.
 * Resolves to `{ offered, sent, ok, statuses, dropped, rps, p50, p90, p99, max, lagP99 }` (ms).
 */
export async function paced({ url, headers, body, rate, seconds, sockets = 64, maxInFlight = 2000 }) {
  // Requests beyond `sockets` wait in the agent's queue: their wait counts in their latency.
  const agent = new Agent({ keepAlive: true, maxSockets: sockets });
  const total = Math.round(rate * seconds);
  const latencies = [];
  const statuses = {};
  const pending = new Set();
  let sent = 0;
  let dropped = 0;
  const t0 = performance.now();
  const lags = [];
  const fire = (dueAt) => {
    const at = performance.now();
    lags.push(at - dueAt);
    const p = post(agent, url, headers, body()).then((status) => {
      statuses[status] = (statuses[status] ?? 0) + 1;
      if (status >= 200 && status < 300) latencies.push(performance.now() - at);
      pending.delete(p);
    });
    pending.add(p);
  };
  await new Promise((done) => {
    const timer = setInterval(() => {
      const now = performance.now();
      const due = Math.min(total, Math.floor(((now - t0) / 1000) * rate));
      while (sent + dropped < due) {
        const dueAt = t0 + ((sent + dropped) * 1000) / rate;
        if (pending.size >= maxInFlight) {
          dropped += 1;
        } else {
          sent += 1;
          fire(dueAt);
        }
      }
      if (sent + dropped >= total) {
        clearInterval(timer);
        done(undefined);
      }
    }, TICK_MS);
  });
  await Promise.all(pending);
  const elapsed = (performance.now() - t0) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  lags.sort((a, b) => a - b);
  const r = (v) => Math.round(v * 10) / 10;
  return {
    offered: rate,
    sent,
    ok: latencies.length,
    dropped,
    statuses,
    rps: Math.round(latencies.length / elapsed),
    p50: r(quantile(latencies, 0.5)),
    p90: r(quantile(latencies, 0.9)),
    p99: r(quantile(latencies, 0.99)),
    max: r(latencies.at(-1) ?? Number.NaN),
    lagP99: r(quantile(lags, 0.99)),
  };
}
