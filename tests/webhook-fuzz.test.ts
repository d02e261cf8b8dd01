import { prng } from "@tocsin/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api } from "./api.js";
import { type RunningSystem, startSystem } from "./harness.js";
import { seedProject, seedUser } from "./seed.js";
import { rawPost } from "./webhook-client.js";

interface Case {
  kind: string;
  body: string | Buffer;
  headers: Record<string, string>;
}

function isObjectJson(text: string): boolean {
  try {
    const v = JSON.parse(text);
    return v !== null && typeof v === "object" && !Array.isArray(v);
  } catch {
    return false;
  }
}

/** At least 1,000 malformed webhook requests of every kind the issue names. */
function malformedCases(seed: number): Case[] {
  const rnd = prng(seed);
  const int = (n: number) => Math.floor(rnd() * n);
  const json = { "content-type": "application/json" };
  const cases: Case[] = [];
  const valid = JSON.stringify({ title: "t", nested: { a: [1, 2, { b: "c" }] }, severity: "high" });
  for (let i = 0; i < 250; i++) {
    const cut = valid.slice(0, int(valid.length - 1) + 1);
    const mangled = rnd() < 0.5 ? cut : cut.replace(/[:,"]/, ["", "'", ";"][int(3)] as string);
    if (!isObjectJson(mangled)) cases.push({ kind: "invalid json", body: mangled, headers: json });
  }
  const scalars = ["[]", "[1,2,3]", '[{"title":"x"}]', "1", "-0.5e9", '"a string"', "true", "false", "null", '""'];
  for (let i = 0; i < 150; i++) cases.push({ kind: "not an object", body: scalars[i % scalars.length] as string, headers: json });
  for (let i = 0; i < 120; i++) {
    const depth = 101 + int(3000);
    const open = Array.from({ length: depth - 1 }, () => (rnd() < 0.5 ? '{"k":' : "[")).join("");
    const close = open
      .split(/(?=\{"k":|\[)/)
      .reverse()
      .map((p) => (p === "[" ? "]" : "}"))
      .join("");
    cases.push({ kind: "too deep", body: `{"a":${open}1${close}}`, headers: json });
  }
  for (let i = 0; i < 25; i++) {
    const size = 1024 * 1024 + 1 + int(512 * 1024);
    cases.push({ kind: "too large", body: `{"title":"${"x".repeat(size)}"}`, headers: json });
  }
  const types = [
    "text/plain",
    "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=x",
    "application/xml",
    "image/png",
    "",
  ];
  for (let i = 0; i < 150; i++) {
    const type = types[i % types.length] as string;
    cases.push({
      kind: "wrong content type",
      body: '{"title":"looks fine"}',
      headers: type ? { "content-type": type } : { "content-type": "" },
    });
  }
  for (let i = 0; i < 250; i++) {
    const bytes = Buffer.alloc(1 + int(4096));
    for (let j = 0; j < bytes.length; j++) bytes[j] = int(256);
    if (bytes[0] === 0x7b) bytes[0] = 0xff; // never `{`
    cases.push({ kind: "binary garbage", body: bytes, headers: json });
  }
  for (let i = 0; i < 60; i++) {
    cases.push({
      kind: "huge headers",
      body: '{"title":"x"}',
      headers: { ...json, "x-filler": "h".repeat(20_000 + int(50_000)) },
    });
  }
  return cases;
}

describe("webhook receiver under malformed input", () => {
  let sys: RunningSystem;
  let path = "";
  let token = "";
  let projectId = 0;
  let ownerToken = "";

  beforeAll(async () => {
    sys = await startSystem();
    const owner = await seedUser(sys.url, sys.adminToken, { username: "fuzz" });
    ownerToken = owner.token;
    const project = await seedProject(sys.url, owner.token, { path: "target" });
    projectId = project.id;
    const created = await api(sys.url, owner.token).post(`/api/v4/projects/${project.id}/alert_management/http_integrations`, {
      name: "Fuzzed",
      active: true,
    });
    path = new URL(created.body.url).pathname;
    token = created.body.token;
  });
  afterAll(async () => {
    await sys?.stop();
  });

  it("answers every one of >1,000 malformed requests with a 4xx that says why, stores nothing, and keeps working", async () => {
    const cases = malformedCases(20261121);
    expect(cases.length).toBeGreaterThanOrEqual(1000);
    const outcomes: Array<{ kind: string; status: number; message: unknown }> = [];
    for (let i = 0; i < cases.length; i += 50) {
      const batch = cases.slice(i, i + 50);
      const replies = await Promise.all(
        batch.map((c) =>
          rawPost(sys.url, path, c.body, { authorization: `Bearer ${token}`, ...c.headers }).then(
            (r) => ({ kind: c.kind, status: r.status, message: r.body?.message }),
            // A server that refuses oversized headers may close before the client reads the 431.
            (err: Error) => ({ kind: c.kind, status: c.kind === "huge headers" ? 431 : -1, message: err.message }),
          ),
        ),
      );
      outcomes.push(...replies);
    }
    const wrong = outcomes.filter((o) => {
      if (o.kind === "huge headers") return o.status !== 431;
      const expected = o.kind === "too large" ? 413 : 400;
      return o.status !== expected || typeof o.message !== "string" || (o.message as string).length === 0;
    });
    expect(wrong.slice(0, 5)).toEqual([]);

    expect((await fetch(`${sys.url}/-/health`)).status).toBe(200);
    const alerts = await api(sys.url, ownerToken).get(`/api/v4/projects/${projectId}/alert_management/alerts`);
    expect(alerts.status).toBe(200);
    expect(alerts.body).toEqual([]);
    const ok = await rawPost(sys.url, path, JSON.stringify({ title: "still alive" }), {
      authorization: `Bearer ${token}`,
      prefer: "wait=5",
    });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual([expect.objectContaining({ title: "still alive", events: 1 })]);
  }, 120_000);
});
