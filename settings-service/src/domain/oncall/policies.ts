import { type CallContext, notFound } from "@tocsin/core";
import { internalOnly, memberIds, memberIndex, projectFor, type UserView, userViews } from "./access.js";
import { fieldError } from "./errors.js";
import type { OncallDeps } from "./schedules.js";
import type { EscalationRule, Policy, PolicyFields, RuleStatus } from "./types.js";
import { required } from "./validate.js";
import { checkPolicy, type RuleDraft } from "./validate-policy.js";

export interface PolicyInput {
  name?: string | undefined;
  description?: string | undefined;
  /** Replaces every rule when set. */
  rules?: RuleDraft[] | undefined;
  /** null turns repeating off; undefined keeps it (update) or means off (create). */
  repeatEverySeconds?: number | null | undefined;
  maxRepeats?: number | undefined;
}

export interface RuleView extends EscalationRule {
  user?: UserView;
  schedule?: { iid: number; name: string };
}

export interface PolicyView extends Omit<Policy, "rules"> {
  rules: RuleView[];
}

const policyNotFound = () => notFound("Escalation Policy");

/** Escalation policies (section 11): one per project, Developer+ reads, Maintainer+ writes. */
export function createPolicyUseCases(deps: OncallDeps) {
  const { store, directory } = deps;

  const view = async (policy: Policy, ctx: CallContext): Promise<PolicyView> => {
    const [users, schedules] = await Promise.all([
      userViews(
        directory,
        policy.projectId,
        policy.rules.flatMap((r) => (r.userId === undefined ? [] : [r.userId])),
        ctx,
      ),
      store.listSchedules(policy.projectId),
    ]);
    const names = new Map(schedules.map((s) => [s.iid, s.name]));
    const rules = policy.rules.map((r): RuleView => {
      if (r.userId !== undefined) return { ...r, user: users.get(r.userId) as UserView };
      const iid = r.scheduleIid as number;
      return { ...r, schedule: { iid, name: names.get(iid) ?? "" } };
    });
    return { ...policy, rules };
  };

  /** Validates everything (targets included) before anything is written. */
  const fields = async (
    projectId: number,
    input: PolicyInput,
    base: Policy | undefined,
    ctx: CallContext,
  ): Promise<PolicyFields> => {
    const baseRules: RuleDraft[] | undefined = base?.rules.map((r) => ({
      status: r.status,
      elapsedTimeSeconds: r.elapsedTimeSeconds,
      oncallScheduleIid: r.scheduleIid,
      username: r.userId === undefined ? undefined : `#${r.userId}`,
    }));
    const draft = checkPolicy({
      name: required(input.name ?? base?.name, "name"),
      description: input.description ?? base?.description ?? "",
      rules: required(input.rules ?? baseRules, "rules"),
      repeatEverySeconds: input.repeatEverySeconds === undefined ? (base?.repeatEverySeconds ?? null) : input.repeatEverySeconds,
      maxRepeats: input.maxRepeats ?? base?.maxRepeats ?? 0,
    });
    const schedules = new Set((await store.listSchedules(projectId)).map((s) => s.iid));
    const members = await memberIndex(directory, projectId, ctx);
    const rules = draft.rules.map((r, i): EscalationRule => {
      const rule = { status: r.status as RuleStatus, elapsedTimeSeconds: r.elapsedTimeSeconds };
      if (r.oncallScheduleIid !== undefined) {
        if (!schedules.has(r.oncallScheduleIid))
          throw fieldError(`rules[${i}]`, "oncall_schedule_iid is not a schedule of the project");
        return { ...rule, scheduleIid: r.oncallScheduleIid };
      }
      const kept = input.rules ? undefined : base?.rules[i]?.userId;
      return { ...rule, userId: kept ?? (memberIds(members, [r.username as string], `rules[${i}]`)[0] as number) };
    });
    return {
      name: draft.name,
      description: draft.description,
      rules,
      repeatEverySeconds: draft.repeatEverySeconds,
      maxRepeats: draft.maxRepeats,
    };
  };

  const existing = async (projectId: number, id: number) => {
    const policy = await store.getPolicy(projectId);
    if (!policy || policy.id !== id) throw policyNotFound();
    return policy;
  };

  return {
    async list(project: string, ctx: CallContext): Promise<PolicyView[]> {
      const { id } = await projectFor(directory, project, "read", ctx);
      const policy = await store.getPolicy(id);
      return policy ? [await view(policy, ctx)] : [];
    },
    async get(project: string, policyId: number, ctx: CallContext): Promise<PolicyView> {
      const { id } = await projectFor(directory, project, "read", ctx);
      return view(await existing(id, policyId), ctx);
    },
    async create(project: string, input: PolicyInput, ctx: CallContext): Promise<PolicyView> {
      const { id } = await projectFor(directory, project, "write", ctx);
      return view(await store.createPolicy(id, await fields(id, input, undefined, ctx)), ctx);
    },
    async update(project: string, policyId: number, input: PolicyInput, ctx: CallContext): Promise<PolicyView> {
      const { id } = await projectFor(directory, project, "write", ctx);
      const old = await existing(id, policyId);
      const updated = await store.updatePolicy(id, policyId, await fields(id, input, old, ctx));
      if (!updated) throw policyNotFound();
      return view(updated, ctx);
    },
    async remove(project: string, policyId: number, ctx: CallContext): Promise<void> {
      const { id } = await projectFor(directory, project, "write", ctx);
      if (!(await store.deletePolicy(id, policyId))) throw policyNotFound();
    },
    /** For paging (internal callers only): the project's policy, or undefined. */
    async projectPolicy(projectId: number, ctx: CallContext): Promise<PolicyView | undefined> {
      internalOnly(ctx);
      const policy = await store.getPolicy(projectId);
      return policy && view(policy, ctx);
    },
  };
}

export type PolicyUseCases = ReturnType<typeof createPolicyUseCases>;
