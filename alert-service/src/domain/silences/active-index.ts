import { type Clock, TtlCache } from "@tocsin/core";
import { type CompiledSilence, compileSilence, silenceMatches } from "./matching.js";
import { type Silence, stateAt } from "./model.js";
import { buildRegexChunks } from "./regex-chunks.js";
import { type SilenceSubject, valuesOf } from "./subject.js";

/**
 * The unexpired silences of one project, arranged so that matching an alert costs about the same
 * with 1 or 1,000 silences: each silence that has a plain equality matcher (`name="value"`, value
 * not empty) is filed under that name and value, and an alert only tries the silences filed under
 * its own values of those names; a silence without one but with a positive regex matcher is filed
 * under that regex (regex-chunks.ts: one joined RE2 test skips a chunk of them); the rest (only
 * negative matchers) are tried one by one.
 */
export interface SilenceIndex {
  /** Ids of the silences active at `now` that cover the subject, in id order. */
  covering(subject: SilenceSubject, now: Date): string[];
  /**
   * The gate's question: which active silences cover the subject (`silencedBy`, in id order), and
   * when to look again — the earliest end among them, when the alert may become unsilenced
   * (undefined when none covers it).
   */
  verdict(subject: SilenceSubject, now: Date): { silencedBy: string[]; recheckAt: Date | undefined };
  /** How many silences the index holds (pending and active at build time). */
  readonly size: number;
}

function anchorOf(silence: Silence) {
  return silence.matchers.find((m) => m.isEqual && !m.isRegex && m.value !== "");
}

export function buildSilenceIndex(silences: Silence[]): SilenceIndex {
  const byName = new Map<string, Map<string, CompiledSilence[]>>();
  const byRegex: Parameters<typeof buildRegexChunks>[0] = [];
  const scanned: CompiledSilence[] = [];
  for (const silence of silences) {
    const compiled = compileSilence(silence);
    const anchor = anchorOf(silence);
    if (!anchor) {
      const regex = silence.matchers.find((m) => m.isEqual && m.isRegex);
      if (regex) byRegex.push({ name: regex.name, pattern: regex.value, silence: compiled });
      else scanned.push(compiled);
      continue;
    }
    const byValue = byName.get(anchor.name) ?? new Map<string, CompiledSilence[]>();
    byName.set(anchor.name, byValue);
    const bucket = byValue.get(anchor.value);
    if (bucket) bucket.push(compiled);
    else byValue.set(anchor.value, [compiled]);
  }
  const chunks = buildRegexChunks(byRegex);
  const find = (subject: SilenceSubject, now: Date): Silence[] => {
    const found: Silence[] = [];
    const consider = (c: CompiledSilence) => {
      if (stateAt(c.silence, now) === "active" && silenceMatches(c, subject)) found.push(c.silence);
    };
    for (const [name, byValue] of byName)
      for (const value of valuesOf(subject, name)) for (const c of byValue.get(value) ?? []) consider(c);
    for (const chunk of chunks)
      if (valuesOf(subject, chunk.name).some(chunk.mayMatch)) for (const c of chunk.silences) consider(c);
    for (const c of scanned) consider(c);
    return found;
  };
  return {
    size: silences.length,
    covering(subject, now) {
      return find(subject, now)
        .map((s) => s.id)
        .sort();
    },
    verdict(subject, now) {
      const found = find(subject, now);
      const ends = found.map((s) => s.endsAt.getTime());
      return {
        silencedBy: found.map((s) => s.id).sort(),
        recheckAt: ends.length > 0 ? new Date(Math.min(...ends)) : undefined,
      };
    },
  };
}

export interface SilenceIndexCacheOptions {
  /** The project's silences not yet expired at `now`. */
  load(projectId: number, now: Date): Promise<Silence[]>;
  clock: Clock;
  /**
   * How long an index is used before it is loaded again. Writes through this process invalidate
   * at once; this bounds how long another replica's write goes unseen.
   */
  maxAgeMs: number;
}

/** One index per project, loaded on first use, reloaded when invalidated or older than `maxAgeMs`. */
export interface SilenceIndexCache {
  get(projectId: number): Promise<SilenceIndex>;
  invalidate(projectId: number): void;
}

/** What an index was built from: a rebuild (regex compilation) is skipped when it is unchanged. */
const signatureOf = (silences: Silence[]) => silences.map((s) => `${s.id}@${s.updatedAt.getTime()}`).join(",");

export function createSilenceIndexCache(opts: SilenceIndexCacheOptions): SilenceIndexCache {
  const now = () => opts.clock.now().getTime();
  const entries = new TtlCache<number, { index: Promise<SilenceIndex>; generation: number }>({ ttlMs: opts.maxAgeMs, now });
  // The last index built per project, kept across reloads and invalidations: compiling a
  // thousand silences' expressions costs tens of milliseconds, reading them a few.
  const built = new TtlCache<number, { signature: string; index: SilenceIndex }>({ now });
  let generation = 0;
  const build = (projectId: number, silences: Silence[]) => {
    const signature = signatureOf(silences);
    const last = built.get(projectId);
    if (last?.signature === signature) return last.index;
    const index = buildSilenceIndex(silences);
    built.set(projectId, { signature, index });
    return index;
  };
  return {
    get(projectId) {
      const entry = entries.get(projectId);
      if (entry) return entry.index;
      const mine = ++generation;
      const index = opts.load(projectId, opts.clock.now()).then((silences) => build(projectId, silences));
      entries.set(projectId, { index, generation: mine });
      // A failed load is not kept: the next call tries again.
      index.catch(() => {
        if (entries.get(projectId)?.generation === mine) entries.delete(projectId);
      });
      return index;
    },
    invalidate(projectId) {
      entries.delete(projectId);
    },
  };
}
