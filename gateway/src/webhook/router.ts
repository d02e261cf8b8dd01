import { AppError, safeEqual, sha256 } from "@tocsin/core";
import { authV1 } from "@tocsin/proto";
import { type NextFunction, type Request, type Response, Router } from "express";
import type { GatewayDeps } from "../deps.js";
import { anonymousContext, requestIdOf } from "../http/context.js";
import { toHttpError } from "../http-errors.js";
import { isJsonContentType, parseJsonObject, readBoundedBody } from "./body.js";
import { extractToken } from "./credential.js";
import { createEndpointCache, type EndpointCache } from "./endpoint-cache.js";
import { matchWebhookPath, type WebhookRoute } from "./match.js";
import { idempotencyKeyOf, preferWaitMs, unauthorized, webhookError } from "./respond.js";

const State = authV1.EndpointState;

/** Failures of a dependency (auth, alert-service) as the webhook answers them: `{"message"}`. */
function dependencyError(res: Response, err: unknown, deps: GatewayDeps): void {
  const mapped = toHttpError(err);
  if (mapped.unexpected)
    deps.logger.error({ err: err instanceof AppError ? (err.cause ?? err) : err, requestId: requestIdOf(res) }, "webhook failed");
  const body = mapped.body as { message?: unknown; error?: string };
  const message = typeof body.message === "string" ? body.message : (body.error ?? JSON.stringify(body.message));
  webhookError(res, mapped.status, message, mapped.headers);
}

/** Steps 1–3 of PRODUCT.md section 5, from the headers alone: route, credential, state. */
async function authorise(
  cache: EndpointCache,
  route: WebhookRoute,
  req: Request,
  res: Response,
): Promise<authV1.ResolveIntegrationEndpointResponse | undefined> {
  if (!route.valid)
    return void webhookError(res, 404, "404 Not Found: the endpoint identifier may only contain letters and digits");
  const token = extractToken(req.headers.authorization);
  if (!token) return void unauthorized(res);
  const found = await cache.resolve(route.fullPath, route.kind, route.identifier, anonymousContext(res));
  const matches = found.tokenSha256.length === 32 && safeEqual(sha256(token), found.tokenSha256);
  if (found.state === State.ENDPOINT_STATE_NOT_FOUND || !matches) return void unauthorized(res);
  if (found.state === State.ENDPOINT_STATE_INACTIVE) {
    return void webhookError(res, 403, "403 Forbidden: the integration is disabled. Enable it to receive alerts.");
  }
  if (found.state === State.ENDPOINT_STATE_UNAVAILABLE) {
    return void webhookError(
      res,
      403,
      "403 Forbidden: the project's tier allows only its oldest integration of this type to receive alerts.",
    );
  }
  if (found.state !== State.ENDPOINT_STATE_ACTIVE) return void unauthorized(res);
  return found;
}

/** Steps 4–5: the body, never read past 1 MiB, then its content. */
async function readPayload(req: Request, res: Response): Promise<string | undefined> {
  const read = await readBoundedBody(req);
  if (!read.ok) {
    if (read.problem.kind === "too_large")
      webhookError(res, 413, "413 Request Entity Too Large: the body must be at most 1 MiB", { Connection: "close" });
    else webhookError(res, 400, read.problem.message, { Connection: "close" });
    return undefined;
  }
  const encoding = req.headers["content-encoding"];
  if (encoding && encoding.trim().toLowerCase() !== "identity") {
    webhookError(res, 400, `Content-Encoding '${encoding.slice(0, 40)}' is not supported: send the JSON body uncompressed`);
    return undefined;
  }
  if (!isJsonContentType(req.headers["content-type"])) {
    webhookError(res, 400, "Content-Type must be application/json");
    return undefined;
  }
  const parsed = parseJsonObject(read.bytes);
  if (!parsed.ok) return void webhookError(res, 400, parsed.message);
  // The Alertmanager shape of a Prometheus payload is alert-service's to judge (INVALID_ARGUMENT → 400).
  return parsed.text;
}

/**
 * The alert webhook receiver (PRODUCT.md section 5), mounted before any body parser: it checks
 * route, credential and integration state from the headers, then reads at most 1 MiB of body.
 */
export function webhookRouter(deps: GatewayDeps): Router {
  const router = Router();
  const cache = createEndpointCache({ auth: deps.auth, logger: deps.logger });
  deps.closers.push(() => cache.close());

  router.post(/\/alerts\/notify/, async (req: Request, res: Response, next: NextFunction) => {
    const route = matchWebhookPath(req.path);
    if (!route) return next();
    // Until the body has been read, an early answer must not leave it to be drained.
    res.setHeader("Connection", "close");
    let found: authV1.ResolveIntegrationEndpointResponse | undefined;
    try {
      found = await authorise(cache, route, req, res);
    } catch (err) {
      return dependencyError(res, err, deps);
    }
    if (!found) return;
    const payloadJson = await readPayload(req, res);
    if (payloadJson === undefined) return;
    res.removeHeader("Connection");
    const idempotencyKey = idempotencyKeyOf(req.headers["idempotency-key"]);
    if (idempotencyKey === null) return webhookError(res, 400, "Idempotency-Key must be 1 to 255 visible ASCII characters");
    const waitMs = preferWaitMs(req.get("prefer"));
    const batch = route.kind === "prometheus";
    await ingest(deps, res, { found, payloadJson, idempotencyKey: idempotencyKey ?? "", waitMs, batch });
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
}

async function ingest(deps: GatewayDeps, res: Response, input: IngestInput): Promise<void> {
  const { found, payloadJson, idempotencyKey, waitMs, batch } = input;
  try {
    const request = {
      projectId: found.projectId,
      integrationId: found.integrationId,
      payloadJson,
      idempotencyKey,
      receivedAt: new Date(),
      waitMs,
    };
    const out = await deps.alert.ingestAlert(request, anonymousContext(res), { timeoutMs: waitMs + 5_000 });
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
  } catch (err) {
    dependencyError(res, err, deps);
  }
}
