import { Router } from "express";
import type { GatewayDeps } from "../deps.js";
import { callContext } from "../http/context.js";
import { pageFromRequest, setPaginationHeaders } from "../http/pagination.js";
import { optionalBoolean, optionalString } from "../http/params.js";
import { toOverviewJson, toProjectOpenAlertsJson } from "../presenters/overview.js";
import { projectOf } from "./alert-params.js";

/** The console's aggregate calls: one per view (docs/overview-api.md). */
export function overviewRoutes(deps: GatewayDeps): Router {
  const router = Router();

  router.get("/projects/:id/alert_management/overview", async (req, res) => {
    const overview = await deps.alert.getAlertOverview({ projectIdOrPath: projectOf(req) }, callContext(res));
    res.json(toOverviewJson(overview));
  });

  router.get("/alert_management/open_alerts_by_project", async (req, res) => {
    const q = req.query as Record<string, unknown>;
    const page = pageFromRequest(req);
    const request = { membership: optionalBoolean(q, "membership") ?? false, search: optionalString(q, "search") ?? "" };
    const { projects } = await deps.alert.listOpenAlertCounts(request, callContext(res));
    setPaginationHeaders(req, res, page, projects.length);
    const start = (page.page - 1) * page.perPage;
    res.json(projects.slice(start, start + page.perPage).map(toProjectOpenAlertsJson));
  });

  return router;
}
