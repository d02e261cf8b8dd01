import { AppError, type CallContext, type Clock, notFound } from "@tocsin/core";
import type { ProjectAccess } from "../ports.js";
import { ACCESS } from "../types.js";
import type { SilenceIndexCache } from "./active-index.js";
import { parseMatcherText, silenceFilterHolds } from "./filter.js";
import { type Matcher, SILENCE_STATES, type Silence, type SilenceState, sameMatchers, stateAt } from "./model.js";
import type { SilenceStore } from "./ports.js";
import { type SilenceInput, validateSilence } from "./validate.js";

export interface SilencesDeps {
  store: SilenceStore;
  projects: ProjectAccess;
  clock: Clock;
  /** A new silence id (a random UUID). */
  newId(): string;
  /** The hot path's index, invalidated after each write of this process. */
  index?: SilenceIndexCache;
  /** Told after every write of a project's silences (processing's gate reads them afresh). */
  changed?(projectId: number): void;
  /** Told after a silence was expired before its end (DELETE or a replacing update): its held alerts look again. */
  ended?(silence: Silence, at: Date): Promise<void>;
}

export interface ListSilencesQuery {
  /** State names; empty: every state. INVALID_ARGUMENT (PARAM_VALUE_INVALID) for another name. */
  states?: string[];
  /** Alertmanager's `filter`: matchers in text form (`name="value"`, ...). */
  filter?: string[];
}

function statesOf(names: string[] | undefined): readonly SilenceState[] {
  if (!names?.length) return SILENCE_STATES;
  for (const name of names)
    if (!(SILENCE_STATES as readonly string[]).includes(name))
      throw new AppError("INVALID_ARGUMENT", "PARAM_VALUE_INVALID", "state does not have a valid value");
  return names as SilenceState[];
}

/** A silence with its state at the time of the answer. */
export type SilenceView = Silence & { state: SilenceState };

const silenceNotFound = () => notFound("Silence");
const view = (silence: Silence, now: Date): SilenceView => ({ ...silence, state: stateAt(silence, now) });

/**
 * Alertmanager's `canUpdate`: in place only with the same matchers, and for an active silence
 * the same start (to the second) and an end not in the past, for a pending one a start not in
 * the past. An expired silence is never changed.
 */
function canUpdate(prev: Silence, next: { matchers: Matcher[]; startsAt: Date; endsAt: Date }, now: Date): boolean {
  if (!sameMatchers(prev.matchers, next.matchers)) return false;
  switch (stateAt(prev, now)) {
    case "active":
      return Math.floor(prev.startsAt.getTime() / 1000) === Math.floor(next.startsAt.getTime() / 1000) && next.endsAt >= now;
    case "pending":
      return next.startsAt >= now;
    default:
      return false;
  }
}

/** Alertmanager's order: active by end, then pending by start, then expired, latest end first. */
function byAlertmanagerOrder(now: Date) {
  const order: Record<SilenceState, number> = { active: 0, pending: 1, expired: 2 };
  const rank = (s: Silence) => order[stateAt(s, now)];
  const key = (s: Silence) => {
    const state = stateAt(s, now);
    if (state === "active") return s.endsAt.getTime();
    if (state === "pending") return s.startsAt.getTime();
    return -s.endsAt.getTime();
  };
  return (a: Silence, b: Silence) => rank(a) - rank(b) || key(a) - key(b) || a.id.localeCompare(b.id);
}

export function createSilencesUseCases(deps: SilencesDeps) {
  const changed = (projectId: number) => {
    deps.index?.invalidate(projectId);
    deps.changed?.(projectId);
  };

  async function find(projectId: number, id: string): Promise<Silence> {
    const silence = id.length <= 64 ? await deps.store.get(projectId, id) : undefined;
    if (!silence) throw silenceNotFound();
    return silence;
  }

  async function expireRecord(silence: Silence, now: Date): Promise<Silence> {
    const state = stateAt(silence, now);
    if (state === "expired") return silence;
    const expired = { ...silence, endsAt: now, updatedAt: now, ...(state === "pending" ? { startsAt: now } : {}) };
    await deps.store.update(expired);
    changed(silence.projectId);
    await deps.ended?.(expired, now);
    return expired;
  }

  /**
   * Alertmanager's POST /silences: without `id` a new silence; with the id of a silence of the
   * project, an update in place when `canUpdate` allows, else a new silence (new id, start moved
   * up to now) and the old one expired when it was not already. The new silence is written before
   * the old one is expired, so a failure in between leaves both rather than neither. Errors:
   * SILENCE_INVALID, NOT_FOUND for an unknown id, PERMISSION_DENIED below Maintainer.
   */
  async function upsert(projectIdOrPath: string, input: SilenceInput, ctx: CallContext): Promise<SilenceView> {
    const project = await deps.projects.require(projectIdOrPath, ACCESS.maintainer, ctx);
    const now = deps.clock.now();
    const times = validateSilence(input, now);
    const prev = input.id ? await find(project.id, input.id) : undefined;
    const fields = { matchers: input.matchers, ...times, createdBy: input.createdBy, comment: input.comment };
    if (prev && canUpdate(prev, fields, now)) {
      const updated = { ...prev, ...fields, updatedAt: now };
      await deps.store.update(updated);
      changed(project.id);
      return view(updated, now);
    }
    const created: Silence = {
      id: deps.newId(),
      projectId: project.id,
      ...fields,
      startsAt: fields.startsAt < now ? now : fields.startsAt,
      updatedAt: now,
    };
    await deps.store.insert(created);
    changed(project.id);
    if (prev) await expireRecord(prev, now);
    return view(created, now);
  }

  return {
    upsert,

    /** A REST update: the stored silence with the given fields replaced, then `upsert`'s rules. */
    async update(projectIdOrPath: string, id: string, patch: Partial<Omit<SilenceInput, "id">>, ctx: CallContext) {
      const project = await deps.projects.require(projectIdOrPath, ACCESS.maintainer, ctx);
      const prev = await find(project.id, id);
      const { matchers, startsAt, endsAt, createdBy, comment } = prev;
      return upsert(String(project.id), { matchers, startsAt, endsAt, createdBy, comment, ...patch, id }, ctx);
    },

    async get(projectIdOrPath: string, id: string, ctx: CallContext): Promise<SilenceView> {
      const project = await deps.projects.require(projectIdOrPath, ACCESS.developer, ctx);
      return view(await find(project.id, id), deps.clock.now());
    },

    async list(projectIdOrPath: string, query: ListSilencesQuery, ctx: CallContext): Promise<SilenceView[]> {
      const project = await deps.projects.require(projectIdOrPath, ACCESS.developer, ctx);
      const now = deps.clock.now();
      const states = statesOf(query.states);
      const filter = (query.filter ?? []).map(parseMatcherText);
      return (await deps.store.list(project.id))
        .filter((s) => states.includes(stateAt(s, now)) && silenceFilterHolds(s, filter))
        .sort(byAlertmanagerOrder(now))
        .map((s) => view(s, now));
    },

    /** Alertmanager's DELETE /silence/:id: ends it now (kept, listed as expired); idempotent. */
    async expire(projectIdOrPath: string, id: string, ctx: CallContext): Promise<SilenceView> {
      const project = await deps.projects.require(projectIdOrPath, ACCESS.maintainer, ctx);
      const now = deps.clock.now();
      return view(await expireRecord(await find(project.id, id), now), now);
    },
  };
}

export type SilencesUseCases = ReturnType<typeof createSilencesUseCases>;
