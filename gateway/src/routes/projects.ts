import { AppError } from "@tocsin/core";
import { Router } from "express";
import type { GatewayDeps } from "../deps.js";
import { callContext } from "../http/context.js";
import { optionalInt, optionalString, readParams } from "../http/params.js";
import { must } from "../presenters/must.js";
import { toMemberJson, toProjectJson } from "../presenters/namespace.js";
import { accessLevelParam, idOrPath } from "./members.js";

/** Projects and their members. */
export function projectRoutes(deps: GatewayDeps): Router {
  const router = Router();

  router.post("/projects", async (req, res) => {
    const p = readParams(req);
    const name = optionalString(p, "name")?.trim() || undefined;
    const path = optionalString(p, "path")?.trim() || undefined;
    if (!name && !path) {
      throw new AppError("INVALID_ARGUMENT", "PARAM_MISSING", "name, path are missing, at least one parameter must be provided");
    }
    const request = { name: name ?? (path as string), path: path ?? "", namespaceId: optionalInt(p, "namespace_id") ?? 0 };
    const { project } = await deps.auth.createProject(request, callContext(res));
    res.status(201).json(toProjectJson(must(project, "project")));
  });

  router.get("/projects/:id", async (req, res) => {
    const { project } = await deps.auth.getProject({ idOrPath: idOrPath(req) }, callContext(res));
    res.json(toProjectJson(must(project, "project")));
  });

  router.post("/projects/:id/members", async (req, res) => {
    const request = { projectIdOrPath: idOrPath(req), ...accessLevelParam(readParams(req)) };
    const { member } = await deps.auth.addProjectMember(request, callContext(res));
    res.status(201).json(toMemberJson(must(member, "member")));
  });

  return router;
}
