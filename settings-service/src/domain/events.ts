import { invalidArgument } from "@tocsin/core";

/** The 18 e-mail events of spec section 6, in the API's order. */
export const EVENT_NAMES = [
  "new_note",
  "new_issue",
  "reopen_issue",
  "close_issue",
  "reassign_issue",
  "issue_due",
  "new_merge_request",
  "push_to_merge_request",
  "reopen_merge_request",
  "close_merge_request",
  "reassign_merge_request",
  "merge_merge_request",
  "failed_pipeline",
  "fixed_pipeline",
  "success_pipeline",
  "moved_project",
  "merge_when_pipeline_succeeds",
  "new_epic",
] as const;

export type EventName = (typeof EVENT_NAMES)[number];

/** Every event with its value; unset events are `false`. */
export type Events = Record<EventName, boolean>;

/** A partial change of events: only the named events change. */
export type EventsChange = Partial<Record<EventName, boolean>>;

/** GitLab's levels, exact and case-sensitive. */
const LEVELS = ["disabled", "participating", "watch", "global", "mention", "custom"] as const;
export type Level = (typeof LEVELS)[number];

/** Watchers are not told of these events (GitLab's EXCLUDED_WATCHER_EVENTS). */
export const EXCLUDED_WATCHER_EVENTS: ReadonlySet<EventName> = new Set([
  "push_to_merge_request",
  "issue_due",
  "success_pipeline",
]);

export const GLOBAL_DEFAULT_LEVEL: Level = "participating";
export const SOURCE_DEFAULT_LEVEL: Level = "global";

const levelSet: ReadonlySet<string> = new Set(LEVELS);
const eventSet: ReadonlySet<string> = new Set(EVENT_NAMES);

function isLevel(value: string): value is Level {
  return levelSet.has(value);
}

function isEventName(value: string): value is EventName {
  return eventSet.has(value);
}

/** Rails' enum error: INVALID_ARGUMENT / INVALID_LEVEL `'<value>' is not a valid level`. */
export function parseLevel(value: string): Level {
  if (isLevel(value)) return value;
  throw invalidArgument("INVALID_LEVEL", `'${value}' is not a valid level`);
}

export function parseEvent(value: string): EventName {
  if (isEventName(value)) return value;
  throw invalidArgument("INVALID_EVENT", `'${value}' is not a valid event`);
}

/** Fills in every event; unset ones are false. */
export function fullEvents(stored: EventsChange | undefined): Events {
  const out = {} as Events;
  for (const name of EVENT_NAMES) out[name] = stored?.[name] === true;
  return out;
}
