import type { AddressInfo } from "node:net";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pageFromRequest, setPaginationHeaders } from "./pagination.js";

describe("GitLab pagination headers", () => {
  const app = express();
  app.get("/items", (req, res) => {
    const page = pageFromRequest(req);
    setPaginationHeaders(req, res, page, 45);
    res.json(page);
  });
  let server: ReturnType<typeof app.listen>;
  let base = "";
  beforeAll(async () => {
    server = app.listen(0);
    await new Promise((r) => server.once("listening", r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it("describes the middle page", async () => {
    const res = await fetch(`${base}/items?page=2&per_page=20&status=triggered`);
    expect(await res.json()).toEqual({ page: 2, perPage: 20 });
    expect(res.headers.get("x-total")).toBe("45");
    expect(res.headers.get("x-total-pages")).toBe("3");
    expect(res.headers.get("x-page")).toBe("2");
    expect(res.headers.get("x-per-page")).toBe("20");
    expect(res.headers.get("x-next-page")).toBe("3");
    expect(res.headers.get("x-prev-page")).toBe("1");
    const link = res.headers.get("link") ?? "";
    expect(link).toContain(`<${base}/items?page=1&per_page=20&status=triggered>; rel="prev"`);
    expect(link).toContain(`<${base}/items?page=3&per_page=20&status=triggered>; rel="next"`);
    expect(link).toContain('rel="first"');
    expect(link).toContain(`<${base}/items?page=3&per_page=20&status=triggered>; rel="last"`);
  });

  it("defaults to page 1 of 20 and caps per_page at 100", async () => {
    const first = await fetch(`${base}/items`);
    expect(first.headers.get("x-page")).toBe("1");
    expect(first.headers.get("x-per-page")).toBe("20");
    expect(first.headers.get("x-prev-page")).toBe("");
    const big = await fetch(`${base}/items?per_page=1000`);
    expect(big.headers.get("x-per-page")).toBe("100");
    expect(big.headers.get("x-total-pages")).toBe("1");
    expect(big.headers.get("x-next-page")).toBe("");
  });
});
