import { invalidArgument } from "@tocsin/core";
import type { ServiceHandlers } from "@tocsin/grpc";
import type { alertSilencesV1 } from "@tocsin/proto";
import type { SilencesUseCases, SilenceView } from "../domain/silences/use-cases.js";

type Def = typeof alertSilencesV1.SilenceServiceService;

function toSilenceMessage(s: SilenceView): alertSilencesV1.Silence {
  return {
    id: s.id,
    projectId: s.projectId,
    matchers: s.matchers,
    startsAt: s.startsAt,
    endsAt: s.endsAt,
    createdBy: s.createdBy,
    comment: s.comment,
    state: s.state,
    updatedAt: s.updatedAt,
  };
}

function project(req: { projectIdOrPath: string }): string {
  const value = req.projectIdOrPath.trim();
  if (!value) throw invalidArgument("PARAM_MISSING", "id is missing");
  return value;
}

const one = (s: SilenceView) => ({ silence: toSilenceMessage(s) });

/** The SilenceService RPCs: map the request, call one use-case, map the silence back. */
export function silenceHandlers(m: SilencesUseCases): ServiceHandlers<Def> {
  return {
    async listSilences(req, ctx) {
      const list = await m.list(project(req), { states: req.states, filter: req.filter }, ctx);
      return { silences: list.map(toSilenceMessage) };
    },
    async getSilence(req, ctx) {
      return one(await m.get(project(req), req.silenceId, ctx));
    },
    async putSilence(req, ctx) {
      const { id, matchers, startsAt, endsAt, createdBy, comment } = req;
      const input = { ...(id ? { id } : {}), matchers, startsAt, endsAt, createdBy, comment };
      return one(await m.upsert(project(req), input, ctx));
    },
    async updateSilence(req, ctx) {
      const { matchers, replaceMatchers, startsAt, endsAt, createdBy, comment } = req;
      const patch = {
        ...(replaceMatchers ? { matchers } : {}),
        ...(startsAt ? { startsAt } : {}),
        ...(endsAt ? { endsAt } : {}),
        ...(createdBy !== undefined ? { createdBy } : {}),
        ...(comment !== undefined ? { comment } : {}),
      };
      return one(await m.update(project(req), req.silenceId, patch, ctx));
    },
    async expireSilence(req, ctx) {
      return one(await m.expire(project(req), req.silenceId, ctx));
    },
  };
}
