import type { NextFunction, Request, Response } from "express";

const LABEL = Symbol("routeLabel");
type Labelled = Request & { [LABEL]?: string };

/**
 * Remembers the full pattern of the route that matched (`/api/v4/projects/:id`). The router
 * assigns `req.route` while `req.baseUrl` still holds the mount path; by the time the response
 * finishes (after an error left the routers) the base URL has been reset, so the pattern is
 * captured at assignment.
 */
export function captureRoute() {
  return (req: Request, _res: Response, next: NextFunction) => {
    let route: unknown;
    Object.defineProperty(req, "route", {
      configurable: true,
      enumerable: true,
      get: () => route,
      set(value: { path?: unknown } | undefined) {
        route = value;
        if (value?.path !== undefined) (req as Labelled)[LABEL] = `${req.baseUrl}${patternOf(value.path)}` || "/";
      },
    });
    next();
  };
}

function patternOf(path: unknown): string {
  return Array.isArray(path) ? path.map(String).join("|") : String(path);
}

/**
 * The matched route pattern, never the raw URL, so that metrics and logs have bounded
 * cardinality. Requests that matched no route are `unmatched`; those stopped inside a mounted
 * router before any route matched (e.g. by authentication) are `<mount>/*`.
 */
export function routeLabel(req: Request): string {
  const label = (req as Labelled)[LABEL];
  if (label) return label;
  return req.baseUrl ? `${req.baseUrl}/*` : "unmatched";
}
