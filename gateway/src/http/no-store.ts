import type { NextFunction, Request, Response } from "express";

/**
 * For answers that show a secret (an integration's key, a personal access token, a signing
 * secret): no cache — the browser's, a proxy's — may keep them (GitLab marks such answers so).
 */
export function noStore(_req: Request, res: Response, next: NextFunction): void {
  res.set("Cache-Control", "no-store");
  res.set("Pragma", "no-cache");
  next();
}
