import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { until } from "@tocsin/testing";
import { expect } from "vitest";
import { api } from "./api.js";
import type { RunningSystem } from "./harness.js";
import { type SeededProject, type SeededUser, seedGroup, seedProject, seedUser } from "./seed.js";
import { rawPost } from "./webhook-client.js";

/**
 * What the tracing suite's cases share: the spans as an OTLP/HTTP receiver gets them, that
 * receiver, and a project whose integration's alerts are processed and mailed.
 */

export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  statusCode: number;
}

// OTLP span kinds.
export const SERVER = 2;
export const CLIENT = 3;
export const PRODUCER = 4;
export const CONSUMER = 5;

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
interface OtlpExport {
  resourceSpans?: Array<{
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: Array<{
      spans?: Array<{
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind: number;
        attributes?: OtlpAttribute[];
        status?: { code?: number };
      }>;
    }>;
  }>;
}

function otlpValue(v: OtlpValue): unknown {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.boolValue !== undefined) return v.boolValue;
  return v.doubleValue;
}

const attributesOf = (list: OtlpAttribute[] = []) => Object.fromEntries(list.map((a) => [a.key, otlpValue(a.value)]));

/** A minimal OTLP/HTTP receiver: POST /v1/traces with a JSON ExportTraceServiceRequest. */
export interface Receiver {
  url: string;
  spans: ReceivedSpan[];
  /** Raw bodies as received, to check that no secret was exported. */
  bodies: string[];
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const spans: ReceivedSpan[] = [];
  const bodies: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (req.method !== "POST" || req.url !== "/v1/traces" || !String(req.headers["content-type"]).includes("json")) {
        res.writeHead(404).end();
        return;
      }
      const body = Buffer.concat(chunks).toString("utf8");
      bodies.push(body);
      const request = JSON.parse(body) as OtlpExport;
      for (const rs of request.resourceSpans ?? []) {
        const service = String(attributesOf(rs.resource?.attributes)["service.name"]);
        for (const ss of rs.scopeSpans ?? []) {
          for (const s of ss.spans ?? []) {
            spans.push({
              service,
              traceId: s.traceId,
              spanId: s.spanId,
              parentSpanId: s.parentSpanId ?? "",
              name: s.name,
              kind: s.kind,
              attributes: attributesOf(s.attributes),
              statusCode: s.status?.code ?? 0,
            });
          }
        }
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    bodies,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export const pathOf = (url: string) => new URL(url).pathname;
export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

export interface Seeded {
  owner: SeededUser;
  project: SeededProject;
  integration: { url: string; token: string };
}

export async function seed(sys: RunningSystem): Promise<Seeded> {
  const owner = await seedUser(sys.url, sys.adminToken, { username: "tracer" });
  const group = await seedGroup(sys.url, sys.adminToken, { path: "traced", plan: "premium" });
  await api(sys.url, sys.adminToken).post(`/api/v4/groups/${group.id}/members`, { user_id: owner.user.id, access_level: 50 });
  const project = await seedProject(sys.url, owner.token, { path: "shop", namespaceId: group.id });
  const res = await api(sys.url, owner.token).post(`/api/v4/projects/${project.id}/alert_management/http_integrations`, {
    name: "Traced",
    active: true,
  });
  if (res.status !== 201) throw new Error(`create integration: ${res.status} ${res.text}`);
  // Alert e-mails on, so that processing enqueues a mail job that asks settings-service for recipients.
  const mail = await api(sys.url, owner.token).put(`/api/v4/projects/${project.id}/alert_management/settings`, {
    send_email: true,
  });
  if (mail.status !== 200) throw new Error(`alert settings: ${mail.status} ${mail.text}`);
  return { owner, project, integration: res.body as { url: string; token: string } };
}

/** Posts one alert and waits until the REST API lists it (processing has finished). */
export async function postAlert(sys: RunningSystem, seeded: Seeded, title: string): Promise<void> {
  const res = await rawPost(sys.url, pathOf(seeded.integration.url), JSON.stringify({ title }), bearer(seeded.integration.token));
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  await until(async () => {
    const list = await api(sys.url, seeded.owner.token).get(`/api/v4/projects/${seeded.project.id}/alert_management/alerts`);
    return list.status === 200 && (list.body as Array<{ title: string }>).some((a) => a.title === title);
  });
}
