import type { IncomingMessage, Server, ServerResponse } from "node:http";

/** Longest a stop waits for requests in flight , within the 10 s a shutdown step is given. */
const DRAIN_TIMEOUT_MS = 8_000;

export interface Drain {
  /** Wraps the request listener: counts requests in flight and, once draining, answers `Connection: close`. */
  track(req: IncomingMessage, res: ServerResponse): void;
  /**
   * Graceful close: stop accepting connections, close idle keep-alive sockets, tell every request
   * in flight (or arriving on a busy keep-alive socket) `Connection: close`, answer each, then
   * resolve once every socket has closed (or after `timeoutMs`, cutting what is left).
   */
  close(timeoutMs?: number): Promise<void>;
}

export function createDrain(server: Server): Drain {
  const inFlight = new Set<ServerResponse>();
  let draining = false;
  const closeIdleSoon = () => setImmediate(() => server.closeIdleConnections());
  return {
    track(_req, res) {
      if (draining) res.shouldKeepAlive = false;
      inFlight.add(res);
      res.once("close", () => {
        inFlight.delete(res);
        if (draining) closeIdleSoon();
      });
    },
    close(timeoutMs = DRAIN_TIMEOUT_MS) {
      draining = true;
      for (const res of inFlight) if (!res.headersSent) res.shouldKeepAlive = false;
      return new Promise((resolve) => {
        const cut = setTimeout(() => server.closeAllConnections(), timeoutMs);
        cut.unref();
        server.close(() => {
          clearTimeout(cut);
          resolve();
        });
        server.closeIdleConnections();
      });
    },
  };
}
