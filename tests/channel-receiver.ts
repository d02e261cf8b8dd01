import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** One request as it arrived. */
interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  /** The raw body (signatures are over it). */
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: test code reads whatever JSON arrived
  json: any;
  /** Date.now() at arrival. */
  at: number;
}

/** What to answer: a status (and headers), or `hang` (never answer: the sender's timeout). */
type Answer = { status: number; headers?: Record<string, string> } | "hang";

/**
 * A real HTTP receiver for channel tests: records every request and answers from a per-path
 * script (first scripted answer first), 200 once the script is used up.
 */
export interface Receiver {
  url: string;
  received: Received[];
  at(path: string): Received[];
  script(path: string, ...answers: Answer[]): void;
  stop(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const scripts = new Map<string, Answer[]>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      const path = req.url ?? "/";
      received.push({ path, headers: req.headers, text, json, at: Date.now() });
      const answer = scripts.get(path)?.shift() ?? { status: 200 };
      if (answer === "hang") return;
      res.writeHead(answer.status, answer.headers ?? {});
      res.end(answer.status === 200 ? "ok" : "receiver body that must never be logged");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    at: (path) => received.filter((r) => r.path === path),
    script(path, ...answers) {
      scripts.set(path, [...(scripts.get(path) ?? []), ...answers]);
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
