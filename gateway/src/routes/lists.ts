import { Router } from "express";
import type { GatewayDeps } from "../deps.js";
import { callContext } from "../http/context.js";
import { pageFromRequest, setPaginationHeaders } from "../http/pagination.js";
import { optionalBoolean, optionalString, readParams } from "../http/params.js";
import { must } from "../presenters/must.js";
import { toGroupJson, toMemberJson, toProjectJson } from "../presenters/namespace.js";
import { idOrPath } from "./members.js";

/** The GitLab-shaped lists the console reads: projects, groups and their members. */
export function listRoutes(deps: GatewayDeps): Router {
  const router = Router();
  const query = (params: Record<string, unknown>) => ({
    membership: optionalBoolean(params, "membership") ?? false,
    search: optionalString(params, "search") ?? "",
  });

  router.get("/projects", async (req, res) => {
    const page = pageFromRequest(req);
    const { projects, total } = await deps.auth.listProjects({ ...query(readParams(req)), page }, callContext(res));
    setPaginationHeaders(req, res, page, total);
    res.json(projects.map(toProjectJson));
  });

  router.get("/groups", async (req, res) => {
    const page = pageFromRequest(req);
    const { groups, total } = await deps.auth.listGroups({ ...query(readParams(req)), page }, callContext(res));
    setPaginationHeaders(req, res, page, total);
    res.json(groups.map(toGroupJson));
  });

  router.get("/projects/:id/members/all", async (req, res) => {
    const { project } = await deps.auth.getProject({ idOrPath: idOrPath(req) }, callContext(res));
    const { members } = await deps.auth.listProjectMembers({ projectId: must(project, "project").id }, callContext(res));
    sendPage(req, res, members.map(toMemberJson));
  });

  router.get("/groups/:id/members/all", async (req, res) => {
    const { members } = await deps.auth.listGroupMembers({ groupIdOrPath: idOrPath(req) }, callContext(res));
    sendPage(req, res, members.map(toMemberJson));
  });

  return router;
}

function sendPage<T>(req: Parameters<typeof pageFromRequest>[0], res: Parameters<typeof setPaginationHeaders>[1], all: T[]) {
  const page = pageFromRequest(req);
  setPaginationHeaders(req, res, page, all.length);
  const start = (page.page - 1) * page.perPage;
  res.json(all.slice(start, start + page.perPage));
}
