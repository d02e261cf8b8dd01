import type { CallContext } from "@tocsin/core";
import { FakeClock } from "@tocsin/testing";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { createSqliteAlertsStores } from "../../store/alerts/sqlite-stores.js";
import type { IngestDeps } from "./ingest.js";
import { alertOverview, openAlertsByProject } from "./overview.js";
import { listAlerts } from "./queries.js";

/**
 * The reads that can be long on FerretDB (lists, the overview's counts) get the caller's deadline,
 * so that the store neither starts nor continues them once the caller has given up
 * (store/alerts/mongo-alert-scans.ts).
 */
describe("alert reads carry the caller's deadline to the store", () => {
  const dbs: Database.Database[] = [];
  afterEach(() => {
    for (const db of dbs.splice(0)) db.close();
  });

  function setup() {
    const db = new Database(":memory:");
    dbs.push(db);
    const stores = createSqliteAlertsStores(db);
    const deadlines: Array<[string, number | undefined]> = [];
    const list = stores.alerts.list.bind(stores.alerts);
    stores.alerts.list = (projectId, query, deadlineMs) => {
      deadlines.push(["list", deadlineMs]);
      return list(projectId, query, deadlineMs);
    };
    const overview = stores.overview.overview.bind(stores.overview);
    stores.overview.overview = (projectId, window, deadlineMs) => {
      deadlines.push(["overview", deadlineMs]);
      return overview(projectId, window, deadlineMs);
    };
    // From the domain only (the SQLite overview counts its open alerts through its own method).
    const spyOpenCounts = () => {
      const openCounts = stores.overview.openCounts.bind(stores.overview);
      stores.overview.openCounts = (projectIds, deadlineMs) => {
        deadlines.push(["openCounts", deadlineMs]);
        return openCounts(projectIds, deadlineMs);
      };
    };
    const project = { id: 7, fullPath: "ops/web", tier: "premium" as const, accessLevel: 50 };
    const deps = {
      stores,
      clock: new FakeClock(new Date("2026-12-03T10:00:00.000Z")),
      projects: {
        require: async () => project,
        byId: async () => project,
        visible: async () => [{ ...project, name: "web" }],
      },
      integrations: { opsgenieUrl: async () => undefined },
    } as unknown as IngestDeps;
    return { deps, deadlines, spyOpenCounts };
  }

  it("a list (one status and several), the overview and the open alerts by project", async () => {
    const { deps, deadlines, spyOpenCounts } = setup();
    const ctx: CallContext = { requestId: "r", deadlineMs: 1_800_000_000_000 };
    await listAlerts(deps, { projectIdOrPath: "7" }, ctx);
    await listAlerts(deps, { projectIdOrPath: "7", status: "triggered,acknowledged" }, ctx);
    await alertOverview(deps, "7", ctx);
    spyOpenCounts();
    await openAlertsByProject(deps, { membership: false, search: "" }, ctx);
    expect(deadlines).toEqual([
      ["list", ctx.deadlineMs],
      ["list", ctx.deadlineMs],
      ["list", ctx.deadlineMs],
      ["overview", ctx.deadlineMs],
      ["openCounts", ctx.deadlineMs],
    ]);
  });

  it("no deadline, none passed on", async () => {
    const { deps, deadlines } = setup();
    await listAlerts(deps, { projectIdOrPath: "7" }, { requestId: "r" });
    expect(deadlines).toEqual([["list", undefined]]);
  });
});
