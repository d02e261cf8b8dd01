import express, { type Express, Router } from "express";
import type { GatewayDeps } from "./deps.js";
import { onlyKnownRoutes } from "./http/known-routes.js";
import { accessLog } from "./middleware/access-log.js";
import { authenticate } from "./middleware/authenticate.js";
import { bodyParsers } from "./middleware/body-parsers.js";
import { errorHandler, notFoundHandler } from "./middleware/errors.js";
import { createHttpMetrics } from "./middleware/metrics.js";
import { requestId } from "./middleware/request-id.js";
import { captureRoute } from "./middleware/route-label.js";
import { alertManagementRoutes } from "./routes/alert-management.js";
import { healthRoutes } from "./routes/health.js";
import { identityRoutes } from "./routes/identity.js";
import { notificationSettingsRoutes } from "./routes/notification-settings.js";
import { webhookRouter } from "./webhook/router.js";

/**
 * The gateway's HTTP application (no listen). Order matters: request id → access log → metrics →
 * probes → webhook (reads its own raw body, so before any parser) → REST API → 404 → errors.
 */
export function createApp(deps: GatewayDeps): Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("query parser", "simple");
  const metrics = createHttpMetrics();
  app.use(captureRoute(), requestId(), accessLog(deps.logger), metrics.middleware);
  app.use(healthRoutes(deps, metrics.registry));
  app.use(webhookRouter(deps));
  app.use("/api/v4", restApi(deps));
  app.use(notFoundHandler());
  app.use(errorHandler(deps.logger));
  return app;
}

function restApi(deps: GatewayDeps): Router {
  const api = Router();
  const routes = [identityRoutes(deps), notificationSettingsRoutes(deps), alertManagementRoutes(deps)];
  api.use(onlyKnownRoutes(routes));
  api.use(bodyParsers());
  api.use(authenticate(deps));
  api.use(...routes);
  return api;
}
