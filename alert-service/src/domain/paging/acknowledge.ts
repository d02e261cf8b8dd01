import { AppError, type CallContext, unavailable } from "@tocsin/core";
import type { AlertPaging, IngestDeps } from "../alerts/ingest.js";
import type { AlertStatus } from "../alerts/model.js";
import { alertLaneKey } from "../alerts/ports.js";
import { verifyAckToken } from "./ack-token.js";

export interface AckFromPageResult {
  projectPath: string;
  alertIid: number;
  title: string;
  status: AlertStatus;
  changed: boolean;
  username: string;
}

const invalid = () =>
  new AppError("UNAUTHENTICATED", "PAGE_TOKEN_INVALID", "401 Unauthorized - this acknowledge link is not valid");
const gone = (reason: string, message: string) => new AppError("FAILED_PRECONDITION", reason, message);

/**
 * The acknowledge link of a page e-mail (PRODUCT.md section 11): the token is the credential (no
 * principal). A valid token of an active member acknowledges a triggered alert through its lane
 * (a status change job with the note `acknowledged by @user from a page e-mail`); any other status
 * stays (idempotent: a resolved alert stays resolved). Refusals: a tampered token (401), an
 * expired one or one whose user is blocked or no longer a member (410), never a 500.
 */
export async function acknowledgeFromPage(
  deps: IngestDeps & { paging: AlertPaging },
  token: string,
  ctx: CallContext,
): Promise<AckFromPageResult> {
  if (!deps.paging.secretKey) throw invalid();
  const check = verifyAckToken(deps.paging.secretKey, token, deps.clock.now());
  if (!check.ok && check.reason === "expired")
    throw gone("PAGE_TOKEN_EXPIRED", "410 Gone - this acknowledge link has expired (links are valid for 24 hours)");
  if (!check.ok) throw invalid();
  const alert = await deps.stores.alerts.getById(check.claims.alertId);
  if (!alert) throw invalid();
  const member = (await deps.paging.members.members(alert.projectId, ctx)).find((m) => m.id === check.claims.userId);
  if (!member || member.blocked)
    throw gone("PAGE_TOKEN_REVOKED", "410 Gone - this acknowledge link was revoked: its user is blocked or no longer a member");
  const project = await deps.projects.byId(alert.projectId, ctx);
  const answer = (status: AlertStatus, changed: boolean) => ({
    projectPath: project.fullPath,
    alertIid: alert.iid,
    title: alert.title,
    status,
    changed,
    username: member.username,
  });
  if (alert.status !== "triggered") return answer(alert.status, false);
  const result = await deps.jobs.changeStatus(
    {
      requestId: ctx.requestId,
      projectId: alert.projectId,
      alertId: alert.id,
      status: "acknowledged",
      at: deps.clock.now().toISOString(),
      laneKey: alertLaneKey(alert),
      note: `acknowledged by @${member.username} from a page e-mail`,
    },
    10_000,
  );
  if (!result)
    throw unavailable("ALERT_BUSY", "The alert is busy: the acknowledgement is queued and applies shortly", undefined, 1);
  const now = await deps.stores.alerts.getById(alert.id);
  return answer(now?.status ?? "acknowledged", "changed" in result && result.changed);
}
