import { createServer, Socket } from "node:net";
import { until } from "./until.js";

/** A TCP port that was free a moment ago on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const address = srv.address();
      const port = typeof address === "object" && address ? address.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** Whether something accepts a TCP connection on host:port now. */
function accepts(port: number, host: string): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const s = new Socket();
    s.once("connect", () => {
      s.destroy();
      resolve(true);
    });
    s.once("error", () => resolve(false));
    s.connect(port, host);
  });
}

/** Resolves once something accepts TCP connections on host:port, or rejects after timeoutMs. */
export async function waitForPort(port: number, host = "127.0.0.1", timeoutMs = 20_000): Promise<void> {
  await until(() => accepts(port, host), timeoutMs, 100).catch(() => {
    throw new Error(`nothing listens on ${host}:${port} after ${timeoutMs} ms`);
  });
}
