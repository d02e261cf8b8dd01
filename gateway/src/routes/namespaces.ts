import { notFound, paramMissing } from "@tocsin/core";
import { PLAN_NAMES, planFromName } from "@tocsin/proto";
import { Router } from "express";
import type { GatewayDeps } from "../deps.js";
import { callContext } from "../http/context.js";
import { optionalEnum, optionalInt, readParams, requiredString } from "../http/params.js";
import { must } from "../presenters/must.js";
import { toGroupJson, toMemberJson, toNamespaceJson } from "../presenters/namespace.js";
import { accessLevelParam, idOrPath } from "./members.js";

/** Groups, their members, and the plan of top-level namespaces. */
export function namespaceRoutes(deps: GatewayDeps): Router {
  const router = Router();

  router.post("/groups", async (req, res) => {
    const p = readParams(req);
    const plan = optionalEnum(p, "plan", PLAN_NAMES);
    const request = {
      name: requiredString(p, "name"),
      path: requiredString(p, "path"),
      parentId: optionalInt(p, "parent_id") ?? 0,
      plan: plan ? planFromName(plan) : 0,
    };
    const { group } = await deps.auth.createGroup(request, callContext(res));
    res.status(201).json(toGroupJson(must(group, "group")));
  });

  router.get("/groups/:id", async (req, res) => {
    const { group } = await deps.auth.getGroup({ idOrPath: idOrPath(req) }, callContext(res));
    res.json(toGroupJson(must(group, "group")));
  });

  router.post("/groups/:id/members", async (req, res) => {
    const p = readParams(req);
    const request = { groupIdOrPath: idOrPath(req), ...accessLevelParam(p) };
    const { member } = await deps.auth.addGroupMember(request, callContext(res));
    res.status(201).json(toMemberJson(must(member, "member")));
  });

  router.put("/namespaces/:id", async (req, res) => {
    const id = req.params.id;
    if (!/^\d{1,15}$/.test(id)) throw notFound("Namespace");
    const p = readParams(req);
    const plan = optionalEnum(p, "plan", PLAN_NAMES);
    if (!plan) throw paramMissing("plan");
    const { group } = await deps.auth.setNamespacePlan({ namespaceId: Number(id), plan: planFromName(plan) }, callContext(res));
    res.json(toNamespaceJson(must(group, "group")));
  });

  return router;
}
