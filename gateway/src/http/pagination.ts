import { type Page, toPage } from "@tocsin/core";
import type { Request, Response } from "express";
import { optionalInt, paramValueInvalid } from "./params.js";

/**
 * The highest page a list serves. Past it (a page number that would not fit the int32 paging of
 * the gRPC contracts, e.g. `page=2147483648`) the request is refused with 400 rather than failing.
 */
const MAX_PAGE = 1_000_000;

/** `page` and `per_page` from the query (default 1 and 20, at most 100; page at most MAX_PAGE). */
export function pageFromRequest(req: Request): Page {
  const q = req.query as Record<string, unknown>;
  const page = optionalInt(q, "page");
  if (page !== undefined && page > MAX_PAGE) throw paramValueInvalid("page");
  return toPage(page, optionalInt(q, "per_page"));
}

/** GitLab's pagination headers: X-Total, X-Total-Pages, X-Page, X-Per-Page, X-Next-Page, X-Prev-Page, Link. */
export function setPaginationHeaders(req: Request, res: Response, page: Page, total: number): void {
  const totalPages = Math.max(1, Math.ceil(total / page.perPage));
  res.setHeader("X-Total", String(total));
  res.setHeader("X-Total-Pages", String(totalPages));
  res.setHeader("X-Page", String(page.page));
  res.setHeader("X-Per-Page", String(page.perPage));
  res.setHeader("X-Next-Page", page.page < totalPages ? String(page.page + 1) : "");
  res.setHeader("X-Prev-Page", page.page > 1 ? String(page.page - 1) : "");
  const base = `${req.protocol}://${req.get("host") ?? "localhost"}${req.baseUrl}${req.path}`;
  const link = (p: number, rel: string) => {
    const params = new URLSearchParams(req.query as Record<string, string>);
    params.set("page", String(p));
    params.set("per_page", String(page.perPage));
    return `<${base}?${params.toString()}>; rel="${rel}"`;
  };
  const links: string[] = [];
  if (page.page > 1) links.push(link(page.page - 1, "prev"));
  if (page.page < totalPages) links.push(link(page.page + 1, "next"));
  links.push(link(1, "first"), link(totalPages, "last"));
  res.setHeader("Link", links.join(", "));
}
