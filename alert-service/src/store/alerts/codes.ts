import { alreadyExists } from "@tocsin/core";
import { ALERT_STATUSES, type AlertStatus, SEVERITIES, type Severity } from "../../domain/alerts/model.js";

/** Stored numbers of severities and statuses (the reference's enum values), for ordering. */
export const severityCode = (s: Severity): number => SEVERITIES.indexOf(s);
export const severityOf = (n: number): Severity => SEVERITIES[n] ?? "critical";
export const statusCode = (s: AlertStatus): number => ALERT_STATUSES.indexOf(s);
export const statusOf = (n: number): AlertStatus => ALERT_STATUSES[n] ?? "triggered";
export const RESOLVED = statusCode("resolved");
export const ACKNOWLEDGED = statusCode("acknowledged");
export const TRIGGERED = statusCode("triggered");

export const openAlertExists = () =>
  alreadyExists("OPEN_ALERT_EXISTS", "Cannot have multiple unresolved alerts with the same fingerprint");
export const opApplied = () => alreadyExists("OP_APPLIED", "This processing step was already applied");
