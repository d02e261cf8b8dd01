import { type Request, Router } from "express";
import type { GatewayDeps } from "../deps.js";
import { callContext } from "../http/context.js";
import { readParams } from "../http/params.js";
import { policyJson } from "../presenters/oncall.js";
import { pathInt, projectOf } from "./alert-params.js";
import { policyParams } from "./oncall-params.js";

const BASE = "/projects/:id/incident_management/escalation_policies";

const policyOf = (req: Request) => ({ projectIdOrPath: projectOf(req), id: pathInt(req, "policy_id") });

/** Escalation policies, one per project (PRODUCT.md section 11). */
export function escalationPolicyRoutes(deps: GatewayDeps): Router {
  const router = Router();
  const { oncall } = deps;

  router.get(BASE, async (req, res) => {
    const { policies } = await oncall.listEscalationPolicies({ projectIdOrPath: projectOf(req) }, callContext(res));
    res.json(policies.map(policyJson));
  });
  router.post(BASE, async (req, res) => {
    const request = { projectIdOrPath: projectOf(req), policy: policyParams(readParams(req)) };
    res.status(201).json(policyJson((await oncall.createEscalationPolicy(request, callContext(res))).policy));
  });
  router.get(`${BASE}/:policy_id`, async (req, res) => {
    res.json(policyJson((await oncall.getEscalationPolicy(policyOf(req), callContext(res))).policy));
  });
  router.put(`${BASE}/:policy_id`, async (req, res) => {
    const request = { ...policyOf(req), policy: policyParams(readParams(req)) };
    res.json(policyJson((await oncall.updateEscalationPolicy(request, callContext(res))).policy));
  });
  router.delete(`${BASE}/:policy_id`, async (req, res) => {
    await oncall.deleteEscalationPolicy(policyOf(req), callContext(res));
    res.status(204).end();
  });
  return router;
}
