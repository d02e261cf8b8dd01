import type { CallContext, Logger } from "@tocsin/core";
import { autoResolveJob } from "./auto-resolve.js";
import { incidentJob } from "./incidents.js";
import { type IngestDeps, type IngestRequest, type IngestResult, ingest } from "./ingest.js";
import type { ActivityEntry, Alert, AlertOutcome, AlertSettings, Incident } from "./model.js";
import type {
  AutoResolveJob,
  IncidentJob,
  ProcessAlertJob,
  QueueStats,
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
  stats(): Promise<QueueStats>;
  listAlerts(
    req: q.ListAlertsRequest,
    ctx: CallContext,
  ): Promise<{ alerts: Alert[]; total: number; opsgenieUrl: string | undefined }>;
  getAlert(projectIdOrPath: string, iid: number, ctx: CallContext): Promise<Alert & { activity: ActivityEntry[] }>;
  updateAlertStatus(
    projectIdOrPath: string,
    iid: number,
    status: string,
    ctx: CallContext,
  ): Promise<Alert & { activity: ActivityEntry[] }>;
  listIncidents(req: q.ListIncidentsRequest, ctx: CallContext): Promise<{ incidents: Incident[]; total: number }>;
  getIncident(projectIdOrPath: string, iid: number, ctx: CallContext): Promise<Incident>;
  getAlertSettings(projectIdOrPath: string, ctx: CallContext): Promise<AlertSettings>;
  updateAlertSettings(projectIdOrPath: string, change: Partial<AlertSettings>, ctx: CallContext): Promise<AlertSettings>;
}

/** What the queue workers run (in the main thread, or in the processing thread: see processing-runtime.ts). */
export interface AlertJobHandlers {
  processAlert(job: ProcessAlertJob, logger: Logger): Promise<AlertOutcome>;
  processAlerts(jobs: ProcessAlertJob[], logger: Logger): Promise<BatchResult>;
  incident(job: IncidentJob, logger: Logger): Promise<void>;
  autoResolve(job: AutoResolveJob, logger: Logger): Promise<void>;
  setStatus(job: StatusChangeJob, logger: Logger): Promise<StatusChangeResult>;
  unsilence(job: UnsilenceJob, logger: Logger): Promise<void>;
}

/** The job handlers: all that processing runs (wired by createProcessing, processing-runtime.ts). */
export function createJobHandlers(deps: ProcessingDeps): AlertJobHandlers {
  return {
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
    stats: () => deps.jobs.stats(),
    listAlerts: (req, ctx) => q.listAlerts(deps, req, ctx),
    getAlert: (p, iid, ctx) => q.getAlert(deps, p, iid, ctx),
    updateAlertStatus: (p, iid, status, ctx) => q.updateAlertStatus(deps, p, iid, status, ctx),
    listIncidents: (req, ctx) => q.listIncidents(deps, req, ctx),
    getIncident: (p, iid, ctx) => q.getIncident(deps, p, iid, ctx),
    getAlertSettings: (p, ctx) => q.getAlertSettings(deps, p, ctx),
    updateAlertSettings: (p, change, ctx) => q.updateAlertSettings(deps, p, change, ctx),
  };
}
