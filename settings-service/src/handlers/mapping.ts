import { invalidArgument } from "@tocsin/core";
import { settingsV1 } from "@tocsin/proto";
import { EVENT_NAMES, type EventName, type EventsChange } from "../domain/events.js";
import type { SettingView, SourceKind } from "../domain/settings.js";

type ProtoEventKey = keyof settingsV1.NotificationEvents;

const camel = (name: EventName) => name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()) as ProtoEventKey;

/** snake_case event name ↔ the proto's camelCase field. */
const EVENT_FIELDS: ReadonlyArray<readonly [EventName, ProtoEventKey]> = EVENT_NAMES.map((n) => [n, camel(n)] as const);

export function eventsChangeFromProto(update: settingsV1.NotificationEventsUpdate | undefined): EventsChange {
  const change: EventsChange = {};
  if (!update) return change;
  for (const [name, field] of EVENT_FIELDS) {
    const value = update[field];
    if (value !== undefined) change[name] = value;
  }
  return change;
}

export function settingToProto(view: SettingView): settingsV1.NotificationSetting {
  const events = {} as settingsV1.NotificationEvents;
  for (const [name, field] of EVENT_FIELDS) events[field] = view.events[name];
  return { level: view.level, notificationEmail: view.notificationEmail, events, newEpicApplies: view.newEpicApplies };
}

export function sourceKindFromProto(type: settingsV1.SourceType): SourceKind {
  if (type === settingsV1.SourceType.SOURCE_TYPE_GROUP) return "group";
  if (type === settingsV1.SourceType.SOURCE_TYPE_PROJECT) return "project";
  throw invalidArgument("INVALID_SOURCE_TYPE", "source_type must be group or project");
}
