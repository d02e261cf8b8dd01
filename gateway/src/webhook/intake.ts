import type { IncomingMessage, ServerResponse } from "node:http";
import { AppError, type CallContext, safeEqual, sha256 } from "@tocsin/core";
import { authV1, planNameOrNull } from "@tocsin/proto";
import type { IngestPort } from "../deps.js";
import type { CredentialThrottle } from "../protect/credential-throttle.js";
import { isJsonContentType, parseJsonObject, readBoundedBody } from "./body.js";
import { extractToken } from "./credential.js";
import type { EndpointCache } from "./endpoint-cache.js";
import type { WebhookRoute } from "./match.js";
import { rateLimited, setRateLimitHeaders } from "./rate-limit.js";
import {
  endpointIdentifierInvalid,
  idempotencyKeyOf,
  integrationInactive,
  integrationOverTierLimit,
  preferWaitMs,
  sendJson,
  webhookBadRequest,
  webhookPayloadTooLarge,
  webhookUnauthorized,
} from "./respond.js";
import { SIGNATURE_HEADER, signatureRefused, verifySignature } from "./signature.js";

const State = authV1.EndpointState;

/** What the webhook's steps use, built once per gateway. */
export interface IntakeDeps {
  ingest: IngestPort;
  cache: EndpointCache;
  throttle: CredentialThrottle;
  /** Counts a request refused by the integration's rate limit. */
  throttled: (projectId: number, recovery: boolean) => void;
}

/** One request's facts that are known before any step runs. */
export interface IntakeRequest {
  route: WebhookRoute;
  ctx: CallContext;
  address: string;
}

/**
 * PRODUCT.md sections 5 and 10, in order: the address's failed credentials, route, credential and
 * state from the headers, the signature's presence, then at most 1 MiB of body, its signature and
 * content, then the ingest. Throws an AppError for every refusal; writes the answer on success.
 */
export async function receive(deps: IntakeDeps, req: IncomingMessage, res: ServerResponse, at: IntakeRequest): Promise<void> {
  let admitted: Admitted;
  try {
    admitted = await admit(deps, req, at);
  } catch (err) {
    // Until the body has been read and found good, an answer must not leave it to be drained.
    res.setHeader("Connection", "close");
    throw err;
  }
  const { found, payloadJson } = admitted;
  const idempotencyKey = idempotencyKeyOf(req.headers["idempotency-key"]);
  if (idempotencyKey === null) throw webhookBadRequest("Idempotency-Key must be 1 to 255 visible ASCII characters");
  const prefer = req.headers.prefer;
  const waitMs = preferWaitMs(typeof prefer === "string" ? prefer : undefined);
  const batch = at.route.kind === "prometheus";
  await ingest(deps, res, at.ctx, { found, payloadJson, idempotencyKey: idempotencyKey ?? "", waitMs, batch });
}

interface Admitted {
  found: authV1.ResolveIntegrationEndpointResponse;
  payloadJson: string;
}

/** Everything before the ingest: the caller, the integration, and a good body. */
async function admit(deps: IntakeDeps, req: IncomingMessage, at: IntakeRequest): Promise<Admitted> {
  await deps.throttle.check(at.address);
  let found: authV1.ResolveIntegrationEndpointResponse;
  try {
    found = await authorise(deps.cache, at, req);
  } catch (err) {
    if (err instanceof AppError && err.code === "UNAUTHENTICATED") await deps.throttle.failed(at.address);
    throw err;
  }
  // A missing signature is refused before the body is read.
  if (found.signingSecret && !req.headers[SIGNATURE_HEADER]) throw signatureRefused("missing");
  return { found, payloadJson: await readPayload(req, found.signingSecret) };
}

/** Steps 1–3 of PRODUCT.md section 5, from the headers alone: route, credential, state. */
async function authorise(
  cache: EndpointCache,
  { route, ctx }: IntakeRequest,
  req: IncomingMessage,
): Promise<authV1.ResolveIntegrationEndpointResponse> {
  if (!route.valid) throw endpointIdentifierInvalid();
  const token = extractToken(req.headers.authorization);
  if (!token) throw webhookUnauthorized();
  const found = await cache.resolve(route.fullPath, route.kind, route.identifier, ctx);
  const hash = sha256(token);
  const current = found.tokenSha256.length === 32 && safeEqual(hash, found.tokenSha256);
  // During a reset's grace period the previous key works too (checked against the clock here, so
  // that a cached answer cannot stretch the grace).
  const previous =
    found.previousTokenSha256?.length === 32 &&
    found.previousTokenExpiresAt !== undefined &&
    found.previousTokenExpiresAt.getTime() > Date.now() &&
    safeEqual(hash, found.previousTokenSha256);
  const matches = current || previous;
  if (found.state === State.ENDPOINT_STATE_NOT_FOUND || !matches) throw webhookUnauthorized();
  if (found.state === State.ENDPOINT_STATE_INACTIVE) throw integrationInactive();
  if (found.state === State.ENDPOINT_STATE_UNAVAILABLE) throw integrationOverTierLimit();
  if (found.state !== State.ENDPOINT_STATE_ACTIVE) throw webhookUnauthorized();
  return found;
}

/**
 * Steps 4–5: the body, never read past 1 MiB, then (for an integration with a signing secret)
 * its X-Tocsin-Signature over the raw bytes, then its content.
 */
async function readPayload(req: IncomingMessage, signingSecret: string): Promise<string> {
  const read = await readBoundedBody(req);
  if (!read.ok) throw read.problem.kind === "too_large" ? webhookPayloadTooLarge() : webhookBadRequest(read.problem.message);
  if (signingSecret) {
    const header = req.headers[SIGNATURE_HEADER];
    const verdict = verifySignature(Array.isArray(header) ? header[0] : header, signingSecret, read.bytes, Date.now() / 1000);
    if (verdict !== "ok") throw signatureRefused(verdict);
  }
  const encoding = req.headers["content-encoding"];
  if (encoding && encoding.trim().toLowerCase() !== "identity") {
    throw webhookBadRequest(`Content-Encoding '${encoding.slice(0, 40)}' is not supported: send the JSON body uncompressed`);
  }
  if (!isJsonContentType(req.headers["content-type"])) throw webhookBadRequest("Content-Type must be application/json");
  const parsed = parseJsonObject(read.bytes);
  if (!parsed.ok) throw webhookBadRequest(parsed.message);
  // The Alertmanager shape of a Prometheus payload is alert-service's to judge (INVALID_ARGUMENT → 400).
  return parsed.text;
}

interface IngestInput {
  found: authV1.ResolveIntegrationEndpointResponse;
  payloadJson: string;
  idempotencyKey: string;
  waitMs: number;
  /** An Alertmanager batch: the answer lists every alert's fingerprint, in order. */
  batch: boolean;
}

/** Step 6: one IngestAlert call; 202 once durably queued, or 200 with the outcomes after `Prefer: wait`. */
async function ingest(deps: IntakeDeps, res: ServerResponse, ctx: CallContext, input: IngestInput): Promise<void> {
  const { found, payloadJson, idempotencyKey, waitMs, batch } = input;
  const request = {
    projectId: found.projectId,
    integrationId: found.integrationId,
    payloadJson,
    idempotencyKey,
    receivedAt: new Date(),
    waitMs,
    // The tier the endpoint look-up answered: alert-service then needs no GetProject of its own.
    tier: planNameOrNull(found.tier) ?? "",
  };
  const out = await deps.ingest.submit(request, ctx, { timeoutMs: waitMs + 5_000 });
  if (out.rateLimit) {
    setRateLimitHeaders(res, out.rateLimit);
    if (out.rateLimit.throttled) {
      deps.throttled(found.projectId, out.rateLimit.recovery);
      throw rateLimited(out.rateLimit);
    }
  }
  if (out.replayed) res.setHeader("Idempotent-Replayed", "true");
  if (waitMs > 0 && out.processed) {
    res.setHeader("Preference-Applied", `wait=${Math.ceil(waitMs / 1000)}`);
    const outcomes = out.outcomes.map((o) => ({ iid: o.iid, title: o.title, status: o.status, events: o.events }));
    sendJson(res, 200, outcomes);
    return;
  }
  const fingerprints = out.fingerprints.map((f) => f || null);
  const body: Record<string, unknown> = {
    status: "accepted",
    request_id: out.requestId || ctx.requestId,
    fingerprint: fingerprints[0] ?? null,
  };
  if (batch || fingerprints.length > 1) body.fingerprints = fingerprints;
  sendJson(res, 202, body);
}
