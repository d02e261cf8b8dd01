import { paramMissing } from "@tocsin/core";
import { type Response, Router } from "express";
import type { GatewayDeps } from "../deps.js";
import { callContext } from "../http/context.js";
import { pageFromRequest, setPaginationHeaders } from "../http/pagination.js";
import { optionalBoolean, optionalEnum, optionalEnumList, optionalString, readParams } from "../http/params.js";
import { toAlertJson, toAlertSettingsJson, toIncidentJson } from "../presenters/alerts.js";
import { must } from "../presenters/must.js";
import { overviewRoutes } from "./alert-overview.js";
import { pathInt, projectOf } from "./alert-params.js";

const BASE = "/projects/:id/alert_management";
const STATUSES = ["triggered", "acknowledged", "resolved", "ignored"] as const;
const SEVERITIES = ["critical", "high", "medium", "low", "info", "unknown"] as const;
const ORDER_BY = ["created_at", "updated_at", "started_at", "ended_at", "severity", "status", "events", "iid"] as const;
const SORT = ["asc", "desc"] as const;
const INCIDENT_STATUSES = ["open", "closed"] as const;

/** A header-safe form of a URL (non-ASCII → punycode host and percent-encoding). */
function headerSafeUrl(url: string): string {
  if (/^[\x21-\x7e]+$/.test(url)) return url;
  try {
    return new URL(url).href;
  } catch {
    return encodeURI(url);
  }
}

/**
 * While a project's Opsgenie link is active, its alerts are managed in Opsgenie: the alerts
 * list (an array, as GitLab's) says so in two headers: `X-Opsgenie-Url` (the link) and
 * `X-Alert-Management-Notice` (the sentence to show the user).
 */
function setOpsgenieHeaders(res: Response, opsgenieUrl: string): void {
  const url = headerSafeUrl(opsgenieUrl);
  res.setHeader("X-Opsgenie-Url", url);
  res.setHeader("X-Alert-Management-Notice", `Alerts are managed in Opsgenie while its integration is active: ${url}`);
}

/** Alerts, incidents and alert settings (Developer+ to read alerts, Maintainer+ for settings). */
export function alertRoutes(deps: GatewayDeps): Router {
  const router = Router();
  const { alert } = deps;

  router.get(`${BASE}/settings`, async (req, res) => {
    const { settings } = await alert.getAlertSettings({ projectIdOrPath: projectOf(req) }, callContext(res));
    res.json(toAlertSettingsJson(must(settings, "settings")));
  });

  router.put(`${BASE}/settings`, async (req, res) => {
    const p = readParams(req);
    const request = {
      projectIdOrPath: projectOf(req),
      createIncident: optionalBoolean(p, "create_incident"),
      autoCloseIncident: optionalBoolean(p, "auto_close_incident"),
      sendEmail: optionalBoolean(p, "send_email"),
    };
    const { settings } = await alert.updateAlertSettings(request, callContext(res));
    res.json(toAlertSettingsJson(must(settings, "settings")));
  });

  router.get(`${BASE}/alerts`, async (req, res) => {
    const q = req.query as Record<string, unknown>;
    const page = pageFromRequest(req);
    const request = {
      projectIdOrPath: projectOf(req),
      // One status or several, comma-separated (`triggered,acknowledged`: the console's Open tab).
      status: optionalEnumList(q, "status", STATUSES) ?? "",
      search: optionalString(q, "search") ?? "",
      severity: optionalEnum(q, "severity", SEVERITIES) ?? "",
      monitoringTool: optionalString(q, "monitoring_tool") ?? "",
      service: optionalString(q, "service") ?? "",
      orderBy: optionalEnum(q, "order_by", ORDER_BY) ?? "created_at",
      sort: optionalEnum(q, "sort", SORT) ?? "desc",
      page: page.page,
      perPage: page.perPage,
    };
    const out = await alert.listAlerts(request, callContext(res));
    setPaginationHeaders(req, res, page, out.total);
    if (out.opsgenieUrl) setOpsgenieHeaders(res, out.opsgenieUrl);
    res.json(out.alerts.map((a) => toAlertJson(a)));
  });

  router.get(`${BASE}/alerts/:alert_iid`, async (req, res) => {
    const request = { projectIdOrPath: projectOf(req), alertIid: pathInt(req, "alert_iid") };
    const { alert: found } = await alert.getAlert(request, callContext(res));
    res.json(toAlertJson(must(found, "alert"), true));
  });

  router.put(`${BASE}/alerts/:alert_iid`, async (req, res) => {
    const status = optionalEnum(readParams(req), "status", STATUSES);
    if (!status) throw paramMissing("status");
    const request = { projectIdOrPath: projectOf(req), alertIid: pathInt(req, "alert_iid"), status };
    const { alert: updated } = await alert.updateAlertStatus(request, callContext(res));
    res.json(toAlertJson(must(updated, "alert"), true));
  });

  router.get(`${BASE}/incidents`, async (req, res) => {
    const q = req.query as Record<string, unknown>;
    const page = pageFromRequest(req);
    const request = {
      projectIdOrPath: projectOf(req),
      status: optionalEnum(q, "status", INCIDENT_STATUSES) ?? "",
      page: page.page,
      perPage: page.perPage,
    };
    const out = await alert.listIncidents(request, callContext(res));
    setPaginationHeaders(req, res, page, out.total);
    res.json(out.incidents.map(toIncidentJson));
  });

  router.get(`${BASE}/incidents/:incident_iid`, async (req, res) => {
    const request = { projectIdOrPath: projectOf(req), incidentIid: pathInt(req, "incident_iid") };
    const { incident } = await alert.getIncident(request, callContext(res));
    res.json(toIncidentJson(must(incident, "incident")));
  });

  router.use(overviewRoutes(deps));
  return router;
}
