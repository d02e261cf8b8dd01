#!/usr/bin/env node
// A plain node:http server, the floor that Tocsin's numbers are read against: what this machine
// does for an HTTP request with a JSON body and a JSON answer and no framework, gRPC or storage.
//
// As a module:
//   import { startBaseline } from "./baseline.mjs";
//   const baseline = await startBaseline();          // 127.0.0.1, a free port
//   // autocannon({ url: `${baseline.url}/alerts`, method: "POST", body, ... })
//   await baseline.close();
// As a command (Ctrl-C stops it):
//   node bench/baseline.mjs [port]
//
// Every request: the body is read (limit 1 MiB) and, for POST/PUT, parsed as JSON; the answer is
// 202 {"status":"accepted",...} for POST, 200 {"ok":true} otherwise, 400 for bad JSON, 413 over
// the limit: the same work a gateway does before it hands off, minus everything after.
import { createServer } from "node:http";
import { pathToFileURL } from "node:url";

const LIMIT_BYTES = 1024 * 1024;

/** @param {import("node:http").IncomingMessage} req */
function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on("data", (chunk) => {
      size += chunk.length;
      if (size > LIMIT_BYTES) {
        reject(Object.assign(new Error("too large"), { status: 413 }));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function send(res, status, body) {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

let counter = 0;

async function handle(req, res) {
  try {
    const text = await readBody(req);
    if (req.method === "POST" || req.method === "PUT") {
      const payload = text ? JSON.parse(text) : {};
      if (payload === null || typeof payload !== "object") return send(res, 400, { message: "payload must be an object" });
      if (req.method === "POST") {
        counter += 1;
        return send(res, 202, { status: "accepted", request_id: `baseline-${counter}`, fingerprint: null });
      }
    }
    return send(res, 200, { ok: true });
  } catch (err) {
    const status = err && typeof err === "object" && "status" in err ? Number(err.status) : 400;
    if (!res.headersSent && !res.destroyed) send(res, status, { message: status === 413 ? "payload too large" : "invalid JSON" });
  }
}

/**
 * Starts the baseline server. Resolves to `{ url, port, close() }`.
 * @param {{ port?: number, host?: string }} [options]
 */
export function startBaseline(options = {}) {
  const host = options.host ?? "127.0.0.1";
  const server = createServer((req, res) => void handle(req, res));
  server.keepAliveTimeout = 65_000;
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      resolve({
        url: `http://${host}:${port}`,
        port,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections?.();
            server.close(() => done(undefined));
          }),
      });
    });
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const baseline = await startBaseline({ port: Number(process.argv[2] ?? 0) });
  console.log(`baseline listening on ${baseline.url}`);
  const stop = () => void baseline.close().then(() => process.exit(0));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}
