import type { Alert, AlertSettings, AlertStatus } from "./model.js";

/**
 * Where e-mail, paging (issue 22), chat and webhooks (issue 23) and silences (issue 24) plug into
 * processing (docs/architecture.md, "Reactions"). Every path that changes an alert emits an
 * *alert event* into one `Reactions` dispatcher; none of them calls a reactor itself.
 */

const ALERT_EVENT_KINDS = [
  "alert.triggered",
  "alert.acknowledged",
  "alert.resolved",
  "alert.ignored",
  "incident.opened",
  "incident.closed",
  /** A page went out (issue 22). */
  "alert.paged",
  /** The last silence over a still-triggered alert ended (issue 24). */
  "alert.unsilenced",
] as const;
export type AlertEventKind = (typeof ALERT_EVENT_KINDS)[number];

/** The job that made the change: the processing job (a payload), a user's status change, auto-resolve, the incident job, a page (issue 22), the end of a silence (issue 24). */
export type AlertEventCause = "processing" | "status-change" | "auto-resolve" | "incident" | "paging" | "unsilence";

/**
 * A change of an alert that people are told about. A repeat grouped into an open alert is no
 * event, nor is an alert created already resolved (nobody was told it triggered).
 */
export interface AlertEvent {
  /** `<alertId>:<kind>:<op>`, derived (never random): a re-run of the job gives the same id. */
  id: string;
  kind: AlertEventKind;
  projectId: number;
  alertId: number;
  requestId: string;
  at: Date;
  /** Which job made the change (e-mail mails only what the processing job did, PRODUCT.md section 9). */
  by: AlertEventCause;
}

/** The event's id: `op` is the id of the job that made the change (its idempotency key). */
const alertEventId = (alertId: number, kind: AlertEventKind, op: string) => `${alertId}:${kind}:${op}`;

/** An event of the change `op` made (its id derived from them). */
export function alertEvent(
  kind: AlertEventKind,
  op: string,
  fields: { projectId: number; alertId: number; requestId: string; at: Date; by: AlertEventCause },
): AlertEvent {
  return { id: alertEventId(fields.alertId, kind, op), kind, ...fields };
}

/** The event of a user's status change to `status`. */
export function statusEventKind(status: AlertStatus): AlertEventKind {
  return `alert.${status}`;
}

/** What a reactor may read about the event's project without a store of its own (read once per batch). */
export interface ReactionContext {
  settings(): Promise<AlertSettings>;
  /** The alert as the emitting path just wrote it, when it has it (else the gate reads it). */
  alert?: Alert;
  /**
   * A read shared by the events of one batch (processing's): `read` runs for the first event
   * that asks for `key`, later ones get its answer. The key names the reactor and what it read
   * (`channels:<projectId>`). Absent for a path that emits one event: the reactor reads itself.
   */
  once?<T>(key: string, read: () => Promise<T>): Promise<T>;
}

/** Events that are never held back: recoveries always pass (PRODUCT.md section 13). */
const ALWAYS_PASS: ReadonlySet<AlertEventKind> = new Set(["alert.resolved", "incident.closed"]);

/**
 * What may hold an event back before any reactor sees it: silences (issue 24). `hold` answers
 * undefined to let the event pass; otherwise the reactors are skipped and the gate's own claim
 * (store writes made, e.g. a durable timer to look again) is enqueued through `enqueue` after the
 * change committed.
 */
export interface ReactionGate<C = unknown> {
  hold(event: AlertEvent, context: ReactionContext): Promise<{ claim: C | undefined } | undefined>;
  enqueue(claims: C[]): Promise<void>;
}

/** The claim list index of the gate's own claims. */
const GATE = -1;

/**
 * One kind of reaction (e-mail today; paging, channels next). `claim` makes the reactor's store
 * writes for the event — only store writes, in the change's own write or batch, keyed by the
 * event so a re-run gets the same answer — and returns what to enqueue, or undefined when the
 * event is none of its business. `enqueue` adds the keyed jobs of many claims at once, after the
 * change committed.
 */
export interface Reactor<C = unknown> {
  readonly name: string;
  claim(event: AlertEvent, context: ReactionContext): Promise<C | undefined>;
  enqueue(claims: C[]): Promise<void>;
}

/** A reactor's claim, as the dispatcher hands it back (opaque to the paths that emit). */
export interface Claim {
  readonly reactor: number;
  readonly value: unknown;
}

/**
 * The dispatcher: the port every path that changes an alert emits into. `claim` inside the
 * change's write (store writes only); `enqueue` once it committed. A path that got no claims has
 * nothing to enqueue (and can record its outcome with its change).
 */
export interface Reactions {
  claim(event: AlertEvent, context?: ReactionContext): Promise<Claim[]>;
  enqueue(claims: readonly Claim[]): Promise<void>;
}

/**
 * Composes reactors into one dispatcher. `settings` reads a project's alert settings for a
 * reactor when the emitting path did not pass a context (the processing job passes its batch's).
 * The `gate` (silences, issue 24) sees every event but recoveries first; an event it holds
 * reaches no reactor.
 */
export function createReactions(
  // biome-ignore lint/suspicious/noExplicitAny: each reactor's claims go back to it alone
  reactors: ReadonlyArray<Reactor<any>>,
  settings: (projectId: number) => Promise<AlertSettings>,
  gate?: ReactionGate,
): Reactions {
  return {
    async claim(event, context) {
      const ctx = context ?? once(() => settings(event.projectId));
      if (gate && !ALWAYS_PASS.has(event.kind)) {
        const held = await gate.hold(event, ctx);
        if (held) return held.claim === undefined ? [] : [{ reactor: GATE, value: held.claim }];
      }
      const claims: Claim[] = [];
      for (let i = 0; i < reactors.length; i++) {
        const value = await (reactors[i] as Reactor).claim(event, ctx);
        if (value !== undefined) claims.push({ reactor: i, value });
      }
      return claims;
    },
    async enqueue(claims) {
      const held = claims.filter((c) => c.reactor === GATE).map((c) => c.value);
      if (gate && held.length) await gate.enqueue(held);
      for (let i = 0; i < reactors.length; i++) {
        const mine = claims.filter((c) => c.reactor === i).map((c) => c.value);
        if (mine.length) await (reactors[i] as Reactor).enqueue(mine);
      }
    },
  };
}

function once(read: () => Promise<AlertSettings>): ReactionContext {
  let value: Promise<AlertSettings> | undefined;
  return { settings: () => (value ??= read()) };
}
