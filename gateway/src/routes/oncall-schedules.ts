import { type Request, Router } from "express";
import type { GatewayDeps } from "../deps.js";
import { callContext } from "../http/context.js";
import { optionalString, readParams } from "../http/params.js";
import { must } from "../presenters/must.js";
import { oncallJson, overrideJson, rotationJson, scheduleJson, shiftJson } from "../presenters/oncall.js";
import { pathInt, projectOf } from "./alert-params.js";
import { overrideParams, rotationParams, scheduleParams } from "./oncall-params.js";

const BASE = "/projects/:id/incident_management";
const SCHEDULE = `${BASE}/oncall_schedules/:iid`;

const scheduleOf = (req: Request) => ({ projectIdOrPath: projectOf(req), scheduleIid: pathInt(req, "iid") });

/** On-call schedules, rotations, overrides, shifts and who is on call (PRODUCT.md section 11). */
export function oncallScheduleRoutes(deps: GatewayDeps): Router {
  const router = Router();
  const { oncall } = deps;

  router.get(`${BASE}/oncall_schedules`, async (req, res) => {
    const { schedules } = await oncall.listSchedules({ projectIdOrPath: projectOf(req) }, callContext(res));
    res.json(schedules.map(scheduleJson));
  });
  router.post(`${BASE}/oncall_schedules`, async (req, res) => {
    const request = { projectIdOrPath: projectOf(req), ...scheduleParams(readParams(req)) };
    res.status(201).json(scheduleJson((await oncall.createSchedule(request, callContext(res))).schedule));
  });
  router.get(SCHEDULE, async (req, res) => {
    const { projectIdOrPath, scheduleIid: iid } = scheduleOf(req);
    res.json(scheduleJson((await oncall.getSchedule({ projectIdOrPath, iid }, callContext(res))).schedule));
  });
  router.put(SCHEDULE, async (req, res) => {
    const { projectIdOrPath, scheduleIid: iid } = scheduleOf(req);
    const request = { projectIdOrPath, iid, ...scheduleParams(readParams(req)) };
    res.json(scheduleJson((await oncall.updateSchedule(request, callContext(res))).schedule));
  });
  router.delete(SCHEDULE, async (req, res) => {
    const { projectIdOrPath, scheduleIid: iid } = scheduleOf(req);
    await oncall.deleteSchedule({ projectIdOrPath, iid }, callContext(res));
    res.status(204).end();
  });

  router.get(`${SCHEDULE}/rotations`, async (req, res) => {
    const { rotations } = await oncall.listRotations(scheduleOf(req), callContext(res));
    res.json(rotations.map(rotationJson));
  });
  router.post(`${SCHEDULE}/rotations`, async (req, res) => {
    const request = { ...scheduleOf(req), rotation: rotationParams(readParams(req)) };
    res.status(201).json(rotationJson(must((await oncall.createRotation(request, callContext(res))).rotation, "rotation")));
  });
  router.get(`${SCHEDULE}/rotations/:rotation_id`, async (req, res) => {
    const request = { ...scheduleOf(req), id: pathInt(req, "rotation_id") };
    res.json(rotationJson(must((await oncall.getRotation(request, callContext(res))).rotation, "rotation")));
  });
  router.put(`${SCHEDULE}/rotations/:rotation_id`, async (req, res) => {
    const request = { ...scheduleOf(req), id: pathInt(req, "rotation_id"), rotation: rotationParams(readParams(req)) };
    res.json(rotationJson(must((await oncall.updateRotation(request, callContext(res))).rotation, "rotation")));
  });
  router.delete(`${SCHEDULE}/rotations/:rotation_id`, async (req, res) => {
    await oncall.deleteRotation({ ...scheduleOf(req), id: pathInt(req, "rotation_id") }, callContext(res));
    res.status(204).end();
  });

  router.get(`${SCHEDULE}/overrides`, async (req, res) => {
    const { overrides } = await oncall.listOverrides(scheduleOf(req), callContext(res));
    res.json(overrides.map(overrideJson));
  });
  router.post(`${SCHEDULE}/overrides`, async (req, res) => {
    const request = { ...scheduleOf(req), ...overrideParams(readParams(req)) };
    res.status(201).json(overrideJson((await oncall.createOverride(request, callContext(res))).override));
  });
  router.delete(`${SCHEDULE}/overrides/:override_id`, async (req, res) => {
    await oncall.deleteOverride({ ...scheduleOf(req), id: pathInt(req, "override_id") }, callContext(res));
    res.status(204).end();
  });

  router.get(`${SCHEDULE}/shifts`, async (req, res) => {
    const p = readParams(req);
    const request = { ...scheduleOf(req), from: optionalString(p, "from") ?? "", to: optionalString(p, "to") ?? "" };
    res.json((await oncall.listShifts(request, callContext(res))).shifts.map(shiftJson));
  });
  router.get(`${BASE}/oncall`, async (req, res) => {
    const request = { projectIdOrPath: projectOf(req), at: optionalString(readParams(req), "at") ?? "" };
    res.json((await oncall.listOncallUsers(request, callContext(res))).schedules.map(oncallJson));
  });
  return router;
}
