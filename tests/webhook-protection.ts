import { request } from "node:http";

/** What a post answered. */
export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  // biome-ignore lint/suspicious/noExplicitAny: test code reads whatever JSON came back
  body: any;
}

/**
 * One HTTP request from a chosen loopback source address (`localAddress`, e.g. 127.0.0.2), so
 * that a test can be several clients: the whole 127.0.0.0/8 is local on Linux.
 */
export function requestFrom(
  from: string,
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: options.method ?? "GET",
        localAddress: from,
        headers: { ...(options.body !== undefined ? { "content-type": "application/json" } : {}), ...options.headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let body: unknown = text;
          try {
            body = text ? JSON.parse(text) : undefined;
          } catch {}
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
        });
      },
    );
    req.on("error", reject);
    req.end(options.body);
  });
}
