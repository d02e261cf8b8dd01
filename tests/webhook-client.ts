import { request as httpRequest } from "node:http";

/** What the server answered to a raw webhook post. */
export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  // biome-ignore lint/suspicious/noExplicitAny: test code reads whatever JSON came back
  body: any;
}

/**
 * Posts raw bytes with node:http (fetch would refuse some of the malformed requests), and
 * resolves with whatever the server answered, even when it closed the connection early.
 */
export function rawPost(base: string, path: string, body: string | Buffer, headers: Record<string, string> = {}): Promise<Reply> {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: "POST", headers: { "content-type": "application/json", ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let parsed: unknown = text;
        try {
          parsed = text ? JSON.parse(text) : undefined;
        } catch {}
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: parsed });
      });
    });
    req.on("error", reject);
    // The server may answer and close before the whole body is sent: that is the point.
    req.end(body, () => undefined);
  });
}
