import { Router } from "express";
import type { GatewayDeps } from "../deps.js";
import { callContext, principalOf } from "../http/context.js";
import { pageFromRequest, setPaginationHeaders } from "../http/pagination.js";
import { optionalEnum, optionalString, readParams } from "../http/params.js";
import { must } from "../presenters/must.js";
import { matchersField, textField, timeField, toSilenceJson } from "../presenters/silences.js";
import { projectOf } from "./alert-params.js";

const BASE = "/projects/:id/alert_management/silences";
const STATES = ["pending", "active", "expired"] as const;

/**
 * The silences of section 13 as snake_case REST (Developer+ read, Maintainer+ write): list
 * (`state`, paginated), get, create, update (the id changes when Alertmanager's rules say so),
 * and DELETE, which expires (the silence stays listed as expired).
 */
export function silenceRoutes(deps: GatewayDeps): Router {
  const router = Router();
  const { silences } = deps;
  const ref = (req: Parameters<typeof projectOf>[0]) => ({
    projectIdOrPath: projectOf(req),
    silenceId: String(req.params.silence_id),
  });

  router.get(BASE, async (req, res) => {
    const state = optionalEnum(req.query as Record<string, unknown>, "state", STATES);
    const request = { projectIdOrPath: projectOf(req), states: state ? [state] : [], filter: [] };
    const all = (await silences.listSilences(request, callContext(res))).silences;
    const page = pageFromRequest(req);
    setPaginationHeaders(req, res, page, all.length);
    const start = (page.page - 1) * page.perPage;
    res.json(all.slice(start, start + page.perPage).map(toSilenceJson));
  });

  router.post(BASE, async (req, res) => {
    const p = readParams(req);
    const request = {
      projectIdOrPath: projectOf(req),
      id: "",
      matchers: matchersField(p, "matchers", true),
      startsAt: timeField(p, "starts_at"),
      endsAt: timeField(p, "ends_at"),
      createdBy: textField(p, "created_by") || principalOf(res).username,
      comment: textField(p, "comment"),
    };
    const { silence } = await silences.putSilence(request, callContext(res));
    res.status(201).json(toSilenceJson(must(silence, "silence")));
  });

  router.get(`${BASE}/:silence_id`, async (req, res) => {
    const { silence } = await silences.getSilence(ref(req), callContext(res));
    res.json(toSilenceJson(must(silence, "silence")));
  });

  router.put(`${BASE}/:silence_id`, async (req, res) => {
    const p = readParams(req);
    const replaceMatchers = p.matchers !== undefined;
    const request = {
      ...ref(req),
      matchers: replaceMatchers ? matchersField(p, "matchers", true) : [],
      replaceMatchers,
      startsAt: timeField(p, "starts_at"),
      endsAt: timeField(p, "ends_at"),
      createdBy: optionalString(p, "created_by"),
      comment: optionalString(p, "comment"),
    };
    const { silence } = await silences.updateSilence(request, callContext(res));
    res.json(toSilenceJson(must(silence, "silence")));
  });

  router.delete(`${BASE}/:silence_id`, async (req, res) => {
    const { silence } = await silences.expireSilence(ref(req), callContext(res));
    res.json(toSilenceJson(must(silence, "silence")));
  });

  return router;
}
