import { AppError, safeEqual, sha256 } from "@tocsin/core";
import { authV1 } from "@tocsin/proto";
import { type NextFunction, type Request, type Response, Router } from "express";
import type { Registry } from "prom-client";
import type { GatewayDeps } from "../deps.js";
import { clientAddress } from "../http/client-address.js";
import { anonymousContext, loggerOf, requestIdOf } from "../http/context.js";
import type { CredentialThrottle } from "../protect/credential-throttle.js";
import { isJsonContentType, parseJsonObject, readBoundedBody } from "./body.js";
import { extractToken } from "./credential.js";
import { createEndpointCache, type EndpointCache } from "./endpoint-cache.js";
import { matchWebhookPath, type WebhookRoute } from "./match.js";
import { createThrottleCounter, rateLimited, setRateLimitHeaders } from "./rate-limit.js";
import {
  endpointIdentifierInvalid,
  idempotencyKeyOf,
  integrationInactive,
  integrationOverTierLimit,
  preferWaitMs,
  sendWebhookError,
  webhookBadRequest,
  webhookPayloadTooLarge,
  webhookUnauthorized,
} from "./respond.js";
import { SIGNATURE_HEADER, signatureRefused, verifySignature } from "./signature.js";

const State = authV1.EndpointState;

/** Steps 1–3 of PRODUCT.md section 5, from the headers alone: route, credential, state. */
async function authorise(
  cache: EndpointCache,
  route: WebhookRoute,
  req: Request,
  res: Response,
): Promise<authV1.ResolveIntegrationEndpointResponse> {
  if (!route.valid) throw endpointIdentifierInvalid();
  const token = extractToken(req.headers.authorization);
  if (!token) throw webhookUnauthorized();
  const found = await cache.resolve(route.fullPath, route.kind, route.identifier, anonymousContext(res));
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
async function readPayload(req: Request, signingSecret: string): Promise<string> {
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

/**
 * The alert webhook receiver (PRODUCT.md section 5), mounted before any body parser: it checks
 * route, credential and integration state from the headers, then reads at most 1 MiB of body.
 */
export function webhookRouter(deps: GatewayDeps, throttle: CredentialThrottle, registry: Registry): Router {
  const router = Router();
  const throttled = createThrottleCounter(registry);
  const cache = createEndpointCache({ auth: deps.auth, logger: deps.logger });
  deps.closers.push(() => cache.close());

  router.post(/\/alerts\/notify/, async (req: Request, res: Response, next: NextFunction) => {
    const route = matchWebhookPath(req.path);
    if (!route) return next();
    // Until the body has been read, an early answer must not leave it to be drained.
    res.setHeader("Connection", "close");
    const address = clientAddress(req);
    try {
      await throttle.check(address);
      const found = await authorise(cache, route, req, res).catch(async (err: unknown) => {
        if (err instanceof AppError && err.code === "UNAUTHENTICATED") await throttle.failed(address);
        throw err;
      });
      // A missing signature is refused before the body is read.
      if (found.signingSecret && !req.headers[SIGNATURE_HEADER]) throw signatureRefused("missing");
      const payloadJson = await readPayload(req, found.signingSecret);
      res.removeHeader("Connection");
      const idempotencyKey = idempotencyKeyOf(req.headers["idempotency-key"]);
      if (idempotencyKey === null) throw webhookBadRequest("Idempotency-Key must be 1 to 255 visible ASCII characters");
      const waitMs = preferWaitMs(req.get("prefer"));
      const batch = route.kind === "prometheus";
      await ingest(deps, res, { found, payloadJson, idempotencyKey: idempotencyKey ?? "", waitMs, batch, throttled });
    } catch (err) {
      sendWebhookError(res, err, loggerOf(res, deps.logger));
    }
  });

  return router;
}

interface IngestInput {
  found: authV1.ResolveIntegrationEndpointResponse;
  payloadJson: string;
  idempotencyKey: string;
  waitMs: number;
  /** An Alertmanager batch: the answer lists every alert's fingerprint, in order. */
  batch: boolean;
  /** Counts a request refused by the integration's rate limit. */
  throttled: (projectId: number, recovery: boolean) => void;
}

async function ingest(deps: GatewayDeps, res: Response, input: IngestInput): Promise<void> {
  const { found, payloadJson, idempotencyKey, waitMs, batch } = input;
  const request = {
    projectId: found.projectId,
    integrationId: found.integrationId,
    payloadJson,
    idempotencyKey,
    receivedAt: new Date(),
    waitMs,
  };
  const out = await deps.alert.ingestAlert(request, anonymousContext(res), { timeoutMs: waitMs + 5_000 });
  if (out.rateLimit) {
    setRateLimitHeaders(res, out.rateLimit);
    if (out.rateLimit.throttled) {
      input.throttled(found.projectId, out.rateLimit.recovery);
      throw rateLimited(out.rateLimit);
    }
  }
  if (out.replayed) res.setHeader("Idempotent-Replayed", "true");
  if (waitMs > 0 && out.processed) {
    res.setHeader("Preference-Applied", `wait=${Math.ceil(waitMs / 1000)}`);
    res.status(200).json(out.outcomes.map((o) => ({ iid: o.iid, title: o.title, status: o.status, events: o.events })));
    return;
  }
  const fingerprints = out.fingerprints.map((f) => f || null);
  const body: Record<string, unknown> = {
    status: "accepted",
    request_id: out.requestId || requestIdOf(res),
    fingerprint: fingerprints[0] ?? null,
  };
  if (batch || fingerprints.length > 1) body.fingerprints = fingerprints;
  res.status(202).json(body);
}
