import type { NextFunction, Request, Response, Router } from "express";

/** The part of express's router layer this module reads (router@2). */
interface Layer {
  route?: unknown;
  slash?: boolean;
  handle?: { stack?: Layer[] };
  match(path: string): unknown;
}

/**
 * True when some route of `routers` has a path matching `path`, whatever the method. Routers
 * mounted without a prefix are searched recursively; a router mounted under a prefix counts as
 * matching everything below it (conservative: the request then goes on to authentication).
 */
function createRouteMatcher(routers: Router[]): (path: string) => boolean {
  const routes: Layer[] = [];
  const prefixed: Layer[] = [];
  const collect = (stack: Layer[]) => {
    for (const layer of stack) {
      if (layer.route) routes.push(layer);
      else if (layer.handle?.stack) {
        if (layer.slash) collect(layer.handle.stack);
        else prefixed.push(layer);
      }
    }
  };
  collect(routers.flatMap((r) => (r as unknown as { stack: Layer[] }).stack));
  return (path) => routes.some((l) => l.match(path) !== false) || prefixed.some((l) => l.match(path) !== false);
}

/**
 * GitLab matches routes before it authenticates: an unknown API route is 404 even without a
 * token. This middleware leaves the API router for the app's 404 handler when no route matches.
 */
export function onlyKnownRoutes(routers: Router[]) {
  const known = createRouteMatcher(routers);
  return (req: Request, _res: Response, next: NextFunction) => (known(req.path) ? next() : next("router"));
}
