import { AppError } from "@tocsin/core";
import { type NextFunction, type Request, type Response, Router } from "express";
import type { GatewayDeps } from "../deps.js";
import { callContext, principalOf } from "../http/context.js";
import { toHttpError } from "../http-errors.js";
import { must } from "../presenters/must.js";
import { matchersField, textField, timeField, toAlertmanagerSilenceJson } from "../presenters/silences.js";
import { projectOf } from "./alert-params.js";

const AM = "/projects/:id/alertmanager/api/v2";

/** The Alertmanager version the status object reports (the amtool the tests drive). */
const ALERTMANAGER_VERSION = "0.28.1";

function bodyOf(req: Request): Record<string, unknown> {
  const body: unknown = req.body;
  if (body === undefined || body === null) return {};
  if (typeof body !== "object" || Array.isArray(body))
    throw new AppError("INVALID_ARGUMENT", "SILENCE_INVALID", "the body must be a JSON object");
  return body as Record<string, unknown>;
}

function filterOf(req: Request): string[] {
  const raw = (req.query as Record<string, unknown>).filter;
  if (raw === undefined) return [];
  return (Array.isArray(raw) ? raw : [raw]).map(String);
}

/**
 * Alertmanager refuses with a JSON string body (what amtool prints); a 5xx still leaves through
 * the gateway's one error handler (logged, GitLab's 500 body).
 */
function alertmanagerErrors(err: unknown, _req: Request, res: Response, next: NextFunction) {
  const mapped = toHttpError(err);
  if (res.headersSent || mapped.status >= 500 || !(err instanceof AppError)) return next(err);
  res.status(mapped.status).set(mapped.headers).json(err.message);
}

/**
 * Alertmanager's v2 silence API under each project (PRODUCT.md section 13), so that amtool's
 * `--alertmanager.url <EXTERNAL_URL>/api/v4/projects/<id>/alertmanager` works unchanged:
 * Developer+ read, Maintainer+ write, a personal access token as bearer token or PRIVATE-TOKEN.
 */
export function alertmanagerRoutes(deps: GatewayDeps): Router {
  const router = Router();
  const { silences } = deps;
  const startedAt = new Date();

  router.get(`${AM}/status`, async (req, res) => {
    // Developer+ only, like the silences it describes.
    await silences.listSilences({ projectIdOrPath: projectOf(req), states: ["active"], filter: [] }, callContext(res));
    res.json({
      cluster: { status: "disabled", peers: [] },
      config: { original: "" },
      uptime: startedAt.toISOString(),
      versionInfo: {
        branch: "tocsin",
        buildDate: "",
        buildUser: "tocsin",
        goVersion: "none",
        revision: "",
        version: ALERTMANAGER_VERSION,
      },
    });
  });

  router.get(`${AM}/silences`, async (req, res) => {
    const request = { projectIdOrPath: projectOf(req), states: [], filter: filterOf(req) };
    const out = await silences.listSilences(request, callContext(res));
    res.json(out.silences.map(toAlertmanagerSilenceJson));
  });

  router.post(`${AM}/silences`, async (req, res) => {
    const body = bodyOf(req);
    const request = {
      projectIdOrPath: projectOf(req),
      id: textField(body, "id"),
      matchers: matchersField(body),
      startsAt: timeField(body, "startsAt"),
      endsAt: timeField(body, "endsAt"),
      createdBy: textField(body, "createdBy") || principalOf(res).username,
      comment: textField(body, "comment"),
    };
    const { silence } = await silences.putSilence(request, callContext(res));
    res.status(200).json({ silenceID: must(silence, "silence").id });
  });

  router.get(`${AM}/silence/:silence_id`, async (req, res) => {
    const request = { projectIdOrPath: projectOf(req), silenceId: String(req.params.silence_id) };
    const { silence } = await silences.getSilence(request, callContext(res));
    res.json(toAlertmanagerSilenceJson(must(silence, "silence")));
  });

  router.delete(`${AM}/silence/:silence_id`, async (req, res) => {
    const request = { projectIdOrPath: projectOf(req), silenceId: String(req.params.silence_id) };
    await silences.expireSilence(request, callContext(res));
    res.status(200).end();
  });

  router.use(AM, alertmanagerErrors);
  return router;
}
