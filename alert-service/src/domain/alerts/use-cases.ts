import { AppError, type CallContext, type Logger } from "@tocsin/core";
import { type AckFromPageResult, acknowledgeFromPage } from "../paging/acknowledge.js";
import { type PagingDeps, pageRuleJob, pageStartJob } from "../paging/escalation.js";
import type { PageRuleJob, PageStartJob } from "../paging/ports.js";
import { autoResolveJob } from "./auto-resolve.js";
import { NO_HOLDS } from "./backlog-gate.js";
import * as c from "./commands.js";
import { incidentJob } from "./incidents.js";
import { type IngestDeps, type IngestRequest, type IngestResult, ingest } from "./ingest.js";
import type { Alert, AlertOutcome, AlertSettings, Incident } from "./model.js";
import { type AlertOverview, alertOverview, openAlertsByProject, type ProjectOpenAlerts } from "./overview.js";
import type {
  AutoResolveJob,
  IncidentJob,
  IngestStats,
  ProcessAlertJob,
  StatusChangeJob,
  StatusChangeResult,
  UnsilenceJob,
} from "./ports.js";
import { type BatchResult, type ProcessingDeps, processAlertJob, processAlertJobs } from "./processing.js";
import * as q from "./queries.js";
import { statusChangeJob } from "./status-change.js";
import { sendTestAlert, type TestAlertRequest, type TestAlertResult } from "./test-alert.js";
import { unsilenceJob } from "./unsilence.js";

/** The alert use-cases (gRPC handlers call these). The job handlers are processing's (createJobHandlers). */
export interface AlertsUseCases {
  ingest(req: IngestRequest, ctx: CallContext): Promise<IngestResult>;
  sendTestAlert(req: TestAlertRequest, ctx: CallContext): Promise<TestAlertResult>;
  stats(): Promise<IngestStats>;
  listAlerts(
    req: q.ListAlertsRequest,
    ctx: CallContext,
  ): Promise<{ alerts: Alert[]; total: number; opsgenieUrl: string | undefined }>;
  getAlert(projectIdOrPath: string, iid: number, ctx: CallContext): Promise<q.AlertDetails>;
  updateAlertStatus(projectIdOrPath: string, iid: number, status: string, ctx: CallContext): Promise<q.AlertDetails>;
  /** The acknowledge link of a page e-mail (no principal: the token is the credential). */
  acknowledgeFromPage(token: string, ctx: CallContext): Promise<AckFromPageResult>;
  listIncidents(req: q.ListIncidentsRequest, ctx: CallContext): Promise<{ incidents: Incident[]; total: number }>;
  getIncident(projectIdOrPath: string, iid: number, ctx: CallContext): Promise<Incident>;
  getAlertSettings(projectIdOrPath: string, ctx: CallContext): Promise<AlertSettings>;
  updateAlertSettings(projectIdOrPath: string, change: Partial<AlertSettings>, ctx: CallContext): Promise<AlertSettings>;
  alertOverview(projectIdOrPath: string, ctx: CallContext): Promise<AlertOverview>;
  openAlertsByProject(filter: { membership: boolean; search: string }, ctx: CallContext): Promise<ProjectOpenAlerts[]>;
}

/** What the queue workers run (in the main thread, or in the processing thread: see processing-runtime.ts). */
export interface AlertJobHandlers {
  processAlert(job: ProcessAlertJob, logger: Logger): Promise<AlertOutcome>;
  processAlerts(jobs: ProcessAlertJob[], logger: Logger): Promise<BatchResult>;
  incident(job: IncidentJob, logger: Logger): Promise<void>;
  autoResolve(job: AutoResolveJob, logger: Logger): Promise<void>;
  setStatus(job: StatusChangeJob, logger: Logger): Promise<StatusChangeResult>;
  pageStart(job: PageStartJob, logger: Logger): Promise<void>;
  pageRule(job: PageRuleJob, logger: Logger): Promise<void>;
  unsilence(job: UnsilenceJob, logger: Logger): Promise<void>;
}

/**
 * The job handlers: all that processing runs (wired by createProcessing, processing-runtime.ts).
 * Without `paging` (no settings-service: unit tests), paging jobs do nothing.
 */
export function createJobHandlers(deps: ProcessingDeps, paging?: PagingDeps): AlertJobHandlers {
  return {
    pageStart: async (job, logger) => (paging ? pageStartJob(paging, job, logger) : undefined),
    pageRule: async (job, logger) => (paging ? pageRuleJob(paging, job, logger) : undefined),
    processAlert: (job, logger) => processAlertJob(deps, job, logger),
    processAlerts: (jobs, logger) => processAlertJobs(deps, jobs, logger),
    incident: (job, logger) => incidentJob(deps, job, logger),
    autoResolve: (job, logger) => autoResolveJob(deps, job, logger),
    setStatus: (job, logger) => statusChangeJob(deps, job, logger),
    unsilence: (job, logger) => unsilenceJob(deps, job, logger),
  };
}

export function createAlertsUseCases(deps: IngestDeps): AlertsUseCases {
  return {
    ingest: (req, ctx) => ingest(deps, req, ctx),
    sendTestAlert: (req, ctx) => sendTestAlert(deps, req, ctx),
    async stats() {
      return { ...(await deps.jobs.stats()), ...(deps.backlog?.stats() ?? NO_HOLDS) };
    },
    listAlerts: (req, ctx) => q.listAlerts(deps, req, ctx),
    getAlert: (p, iid, ctx) => q.getAlert(deps, p, iid, ctx),
    updateAlertStatus: (p, iid, status, ctx) => c.updateAlertStatus(deps, p, iid, status, ctx),
    async acknowledgeFromPage(token, ctx) {
      const paging = deps.paging;
      if (!paging)
        throw new AppError("UNAUTHENTICATED", "PAGE_TOKEN_INVALID", "401 Unauthorized - this acknowledge link is not valid");
      return acknowledgeFromPage({ ...deps, paging }, token, ctx);
    },
    listIncidents: (req, ctx) => q.listIncidents(deps, req, ctx),
    getIncident: (p, iid, ctx) => q.getIncident(deps, p, iid, ctx),
    getAlertSettings: (p, ctx) => q.getAlertSettings(deps, p, ctx),
    updateAlertSettings: (p, change, ctx) => c.updateAlertSettings(deps, p, change, ctx),
    alertOverview: (p, ctx) => alertOverview(deps, p, ctx),
    openAlertsByProject: (filter, ctx) => openAlertsByProject(deps, filter, ctx),
  };
}
