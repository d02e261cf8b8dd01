import type { ServiceHandlers } from "@tocsin/grpc";
import type { oncallV1 } from "@tocsin/proto";
import type { OncallQueries } from "../domain/oncall/oncall-query.js";
import type { PolicyUseCases } from "../domain/oncall/policies.js";
import type { ScheduleUseCases } from "../domain/oncall/schedules.js";
import {
  policyInput,
  rotationInput,
  toOverride,
  toPolicy,
  toRotation,
  toSchedule,
  toScheduleOncall,
  toShift,
} from "./oncall-mapping.js";

type Handlers = ServiceHandlers<typeof oncallV1.OncallServiceService>;

/** Thin gRPC handlers of OncallService: map the request, call one use-case, map the result. */
export function createOncallHandlers(deps: {
  schedules: ScheduleUseCases;
  queries: OncallQueries;
  policies: PolicyUseCases;
}): Handlers {
  const { schedules, queries, policies } = deps;
  return {
    async listSchedules(req, ctx) {
      return { schedules: (await schedules.list(req.projectIdOrPath, ctx)).map(toSchedule) };
    },
    async getSchedule(req, ctx) {
      return { schedule: toSchedule(await schedules.get(req.projectIdOrPath, req.iid, ctx)) };
    },
    async createSchedule(req, ctx) {
      return { schedule: toSchedule(await schedules.create(req.projectIdOrPath, req, ctx)) };
    },
    async updateSchedule(req, ctx) {
      return { schedule: toSchedule(await schedules.update(req.projectIdOrPath, req.iid, req, ctx)) };
    },
    async deleteSchedule(req, ctx) {
      await schedules.remove(req.projectIdOrPath, req.iid, ctx);
      return {};
    },

    async listRotations(req, ctx) {
      return { rotations: (await schedules.listRotations(req.projectIdOrPath, req.scheduleIid, ctx)).map(toRotation) };
    },
    async getRotation(req, ctx) {
      return { rotation: toRotation(await schedules.getRotation(req.projectIdOrPath, req.scheduleIid, req.id, ctx)) };
    },
    async createRotation(req, ctx) {
      const rotation = await schedules.createRotation(req.projectIdOrPath, req.scheduleIid, rotationInput(req.rotation), ctx);
      return { rotation: toRotation(rotation) };
    },
    async updateRotation(req, ctx) {
      const input = rotationInput(req.rotation);
      return { rotation: toRotation(await schedules.updateRotation(req.projectIdOrPath, req.scheduleIid, req.id, input, ctx)) };
    },
    async deleteRotation(req, ctx) {
      await schedules.removeRotation(req.projectIdOrPath, req.scheduleIid, req.id, ctx);
      return {};
    },

    async listOverrides(req, ctx) {
      return { overrides: (await queries.listOverrides(req.projectIdOrPath, req.scheduleIid, ctx)).map(toOverride) };
    },
    async createOverride(req, ctx) {
      return { override: toOverride(await queries.createOverride(req.projectIdOrPath, req.scheduleIid, req, ctx)) };
    },
    async deleteOverride(req, ctx) {
      await queries.removeOverride(req.projectIdOrPath, req.scheduleIid, req.id, ctx);
      return {};
    },

    async listShifts(req, ctx) {
      return { shifts: (await queries.shifts(req.projectIdOrPath, req.scheduleIid, req, ctx)).map(toShift) };
    },
    async listOncallUsers(req, ctx) {
      return { schedules: (await queries.oncall(req.projectIdOrPath, req.at, ctx)).map(toScheduleOncall) };
    },
    async resolveScheduleOncall(req, ctx) {
      return { oncall: toScheduleOncall(await queries.scheduleOncall(req.projectId, req.scheduleIid, req.at, ctx)) };
    },

    async listEscalationPolicies(req, ctx) {
      return { policies: (await policies.list(req.projectIdOrPath, ctx)).map(toPolicy) };
    },
    async getEscalationPolicy(req, ctx) {
      return { policy: toPolicy(await policies.get(req.projectIdOrPath, req.id, ctx)) };
    },
    async createEscalationPolicy(req, ctx) {
      return { policy: toPolicy(await policies.create(req.projectIdOrPath, policyInput(req.policy), ctx)) };
    },
    async updateEscalationPolicy(req, ctx) {
      return { policy: toPolicy(await policies.update(req.projectIdOrPath, req.id, policyInput(req.policy), ctx)) };
    },
    async deleteEscalationPolicy(req, ctx) {
      await policies.remove(req.projectIdOrPath, req.id, ctx);
      return {};
    },
    async getProjectEscalationPolicy(req, ctx) {
      const policy = await policies.projectPolicy(req.projectId, ctx);
      return { policy: policy && toPolicy(policy) };
    },
  };
}
