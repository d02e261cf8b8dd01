import type { NewAlert } from "../../domain/alerts/ports.js";

/**
 * What the SQLite alert tables' migration tests share (sqlite-schema-v0.test.ts and
 * sqlite-schema-v2-v6.test.ts): the time they start at, and a new alert written after the
 * migration.
 */

export const t0 = Date.parse("2026-11-20T10:00:00.000Z");

export function newAlert(projectId: number, opKey: string, fingerprint?: string): NewAlert {
  const at = new Date(t0 + 60_000);
  return {
    projectId,
    integrationId: 7,
    status: "triggered",
    opKey,
    at,
    alert: {
      title: "CPU hot",
      hosts: [],
      severity: "high",
      startedAt: at.toISOString(),
      source: "tool",
      payload: {},
      fingerprint,
    },
  };
}
