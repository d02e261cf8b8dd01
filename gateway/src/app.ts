import express, { type Express, Router } from "express";
import { consoleRoutes, noSniff } from "./console/serve.js";
import type { GatewayDeps } from "./deps.js";
import { onlyKnownRoutes } from "./http/known-routes.js";
import { traceRequests } from "./http/tracing.js";
import { accessLog } from "./middleware/access-log.js";
import { authenticate } from "./middleware/authenticate.js";
import { registerBacklogMetric } from "./middleware/backlog-metric.js";
import { bodyParsers } from "./middleware/body-parsers.js";
import { errorHandler, notFoundHandler } from "./middleware/errors.js";
import { createHttpMetrics, type HttpMetrics } from "./middleware/metrics.js";
import { createPrincipalCache, type PrincipalCache } from "./middleware/principal-cache.js";
import { requestId } from "./middleware/request-id.js";
import { captureRoute } from "./middleware/route-label.js";
import { type CredentialThrottle, createCredentialThrottle } from "./protect/credential-throttle.js";
import { createLimiterBackend } from "./protect/limiter-backend.js";
import { alertManagementRoutes } from "./routes/alert-management.js";
import { alertmanagerRoutes } from "./routes/alertmanager.js";
import { channelRoutes } from "./routes/channels.js";
import { escalationPolicyRoutes } from "./routes/escalation-policies.js";
import { healthRoutes } from "./routes/health.js";
import { identityRoutes } from "./routes/identity.js";
import { notificationSettingsRoutes } from "./routes/notification-settings.js";
import { oncallScheduleRoutes } from "./routes/oncall-schedules.js";
import { pageAcknowledgeRoutes } from "./routes/page-acknowledge.js";
import { silenceRoutes } from "./routes/silences.js";
import { sessionRoutes } from "./session/routes.js";

/** What the express app and the webhook handler (src/webhook/handler.ts) share. */
export interface HttpShared {
  /** One registry and one pair of HTTP metrics for both. */
  metrics: HttpMetrics;
  /** One failed-credential count per client address, for the webhook and the API alike. */
  throttle: CredentialThrottle;
}

export function createHttpShared(deps: GatewayDeps): HttpShared {
  const limits = createLimiterBackend(deps.config.redisUrl, deps.config.rateLimitPrefix);
  deps.closers.push(() => limits.close());
  const metrics = createHttpMetrics();
  registerBacklogMetric(metrics.registry, deps.alert, deps.logger);
  return { metrics, throttle: createCredentialThrottle(limits) };
}

/**
 * The gateway's HTTP application (no listen). Order matters: nosniff → request id → (request span,
 * with tracing on) → access log →
 * metrics → probes → console sessions → REST API → web console (assets, and index.html for page
 * addresses) → 404 → errors. The webhook's posts never get here: the handler in front of this
 * app (service.ts) takes them.
 */
export function createApp(deps: GatewayDeps, { metrics, throttle }: HttpShared): Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("query parser", "simple");
  app.set("trust proxy", deps.config.trustProxy);
  const principals = createPrincipalCache({ auth: deps.auth, logger: deps.logger });
  deps.closers.push(() => principals.close());
  app.use(noSniff(), captureRoute(), requestId());
  if (deps.tracing) app.use(traceRequests(deps.tracing));
  app.use(accessLog(deps.logger), metrics.middleware);
  app.use(healthRoutes(deps, metrics.registry));
  app.use(sessionRoutes(deps, principals));
  app.use(pageAcknowledgeRoutes(deps));
  app.use("/api/v4", restApi(deps, principals, throttle));
  app.use(consoleRoutes(deps.config.consoleDir));
  app.use(notFoundHandler());
  app.use(errorHandler(deps.logger));
  return app;
}

function restApi(deps: GatewayDeps, principals: PrincipalCache, throttle: CredentialThrottle): Router {
  const api = Router();
  const routes = [
    identityRoutes(deps),
    notificationSettingsRoutes(deps),
    alertManagementRoutes(deps),
    oncallScheduleRoutes(deps),
    escalationPolicyRoutes(deps),
    channelRoutes(deps),
    silenceRoutes(deps),
    alertmanagerRoutes(deps),
  ];
  api.use(onlyKnownRoutes(routes));
  api.use(bodyParsers());
  api.use(authenticate(principals, throttle));
  api.use(...routes);
  return api;
}
