import { readFile } from "node:fs/promises";
import { join } from "node:path";
import express, { type NextFunction, type Request, type Response, Router } from "express";

/** Headers of every console page (PRODUCT.md section 8). */
const CONSOLE_HEADERS = {
  "Content-Security-Policy": "default-src 'self'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'",
  "X-Frame-Options": "DENY",
  "Referrer-Policy": "same-origin",
  "Cache-Control": "no-store",
} as const;

/** Paths that are never console pages, whatever the Accept header says. */
const NOT_CONSOLE = /^\/(?:api|assets)(?:\/|$)|^\/-\/(?:health|readiness|session)(?:\/|$)|^\/metrics(?:\/|$)/;

const wantsHtml = (req: Request) => /\btext\/html\b/i.test(req.get("accept") ?? "");

/**
 * Serves the web console built into `dir` (web/dist): fingerprinted `/assets/*` cached for a
 * year, other files of the build (favicon) revalidated, and `index.html` — never cached — for
 * every GET of a page address that asks for HTML, so that the single-page app routes it (its
 * own sign-in redirect and not-found page included). Anything else falls through to the 404.
 */
export function consoleRoutes(dir: string): Router {
  const router = Router();
  router.use(
    "/assets",
    express.static(join(dir, "assets"), { immutable: true, maxAge: "365d", index: false, fallthrough: true }),
  );
  router.use(
    express.static(dir, {
      index: false,
      setHeaders: (res, path) => {
        if (path.endsWith(".html")) res.set(CONSOLE_HEADERS);
        else res.set("Cache-Control", "no-cache");
      },
    }),
  );
  // A plain middleware, not a route: unmatched requests keep the `unmatched` metrics label.
  router.use((req: Request, res: Response, next: NextFunction) => {
    if ((req.method !== "GET" && req.method !== "HEAD") || !wantsHtml(req) || NOT_CONSOLE.test(req.path)) return next();
    readFile(join(dir, "index.html"))
      // The same address answers JSON to API clients: caches must key on Accept.
      .then((html) => res.status(200).set(CONSOLE_HEADERS).vary("Accept").type("html").send(html))
      .catch((err: NodeJS.ErrnoException) => {
        if (err.code !== "ENOENT") return next(err);
        res
          .status(503)
          .set(CONSOLE_HEADERS)
          .type("text/plain")
          .send(`The web console has not been built: ${join(dir, "index.html")} is missing. Run \`npm run build\`.\n`);
      });
  });
  return router;
}

/** `X-Content-Type-Options: nosniff` on every response (express's X-Powered-By is off in app.ts). */
export function noSniff() {
  return (_req: Request, res: Response, next: NextFunction) => {
    res.setHeader("X-Content-Type-Options", "nosniff");
    next();
  };
}
