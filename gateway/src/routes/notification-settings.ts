import { internal } from "@tocsin/core";
import { settingsV1 } from "@tocsin/proto";
import { type Request, type Response, Router } from "express";
import type { GatewayDeps } from "../deps.js";
import { callContext, principalOf } from "../http/context.js";
import { optionalBoolean, optionalString, readParams } from "../http/params.js";

/** The 18 events of spec section 6, in order, with their proto field names. */
const EVENTS = [
  ["new_note", "newNote"],
  ["new_issue", "newIssue"],
  ["reopen_issue", "reopenIssue"],
  ["close_issue", "closeIssue"],
  ["reassign_issue", "reassignIssue"],
  ["issue_due", "issueDue"],
  ["new_merge_request", "newMergeRequest"],
  ["push_to_merge_request", "pushToMergeRequest"],
  ["reopen_merge_request", "reopenMergeRequest"],
  ["close_merge_request", "closeMergeRequest"],
  ["reassign_merge_request", "reassignMergeRequest"],
  ["merge_merge_request", "mergeMergeRequest"],
  ["failed_pipeline", "failedPipeline"],
  ["fixed_pipeline", "fixedPipeline"],
  ["success_pipeline", "successPipeline"],
  ["moved_project", "movedProject"],
  ["merge_when_pipeline_succeeds", "mergeWhenPipelineSucceeds"],
  ["new_epic", "newEpic"],
] as const satisfies ReadonlyArray<readonly [string, keyof settingsV1.NotificationEvents]>;

type SettingJson = { level: string; notification_email?: string; events?: Record<string, boolean> };

/** Event booleans of a request; a value that is not a boolean → 400 `{"error":"<name> is invalid"}`. */
function eventsUpdate(params: Record<string, unknown>): settingsV1.NotificationEventsUpdate {
  const update: settingsV1.NotificationEventsUpdate = {};
  for (const [name, field] of EVENTS) {
    const value = optionalBoolean(params, name);
    if (value !== undefined) update[field] = value;
  }
  return update;
}

/** GitLab's entity: `level`, then `events` only at level custom (`new_epic` only where it applies). */
function toJson(setting: settingsV1.NotificationSetting | undefined, global: boolean): SettingJson {
  if (!setting) throw internal(new Error("answer without setting"));
  const json: SettingJson = { level: setting.level };
  if (global) json.notification_email = setting.notificationEmail;
  if (setting.level === "custom") {
    const events: Record<string, boolean> = {};
    for (const [name, field] of EVENTS) {
      if (field !== "newEpic" || setting.newEpicApplies) events[name] = setting.events?.[field] === true;
    }
    json.events = events;
  }
  return json;
}

/** The level as sent (validated by settings-service, which owns the level rules). */
function levelParam(params: Record<string, unknown>): { level?: string } {
  const level = optionalString(params, "level");
  return level === undefined ? {} : { level };
}

function source(req: Request, res: Response, type: settingsV1.SourceType) {
  // Express decodes the path segment: `my-group%2Fmy-project` arrives as the full path.
  return { userId: principalOf(res).userId, sourceType: type, sourceIdOrPath: String(req.params.id) };
}

/** Notification settings (spec 4.3–4.6): global, per group and per project. */
export function notificationSettingsRoutes(deps: GatewayDeps): Router {
  const router = Router();
  const { settings } = deps;

  router.get("/notification_settings", async (_req, res) => {
    const { setting } = await settings.getGlobalSetting({ userId: principalOf(res).userId }, callContext(res));
    res.json(toJson(setting, true));
  });

  router.put("/notification_settings", async (req, res) => {
    const p = readParams(req);
    const email = optionalString(p, "notification_email");
    const request = {
      userId: principalOf(res).userId,
      ...levelParam(p),
      events: eventsUpdate(p),
      ...(email === undefined ? {} : { notificationEmail: email }),
    };
    const { setting } = await settings.updateGlobalSetting(request, callContext(res));
    res.json(toJson(setting, true));
  });

  for (const [segment, type] of [
    ["groups", settingsV1.SourceType.SOURCE_TYPE_GROUP],
    ["projects", settingsV1.SourceType.SOURCE_TYPE_PROJECT],
  ] as const) {
    router.get(`/${segment}/:id/notification_settings`, async (req, res) => {
      const { setting } = await settings.getSourceSetting(source(req, res, type), callContext(res));
      res.json(toJson(setting, false));
    });

    router.put(`/${segment}/:id/notification_settings`, async (req, res) => {
      const p = readParams(req);
      const request = { ...source(req, res, type), ...levelParam(p), events: eventsUpdate(p) };
      const { setting } = await settings.updateSourceSetting(request, callContext(res));
      res.json(toJson(setting, false));
    });
  }

  return router;
}
