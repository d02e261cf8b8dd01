import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { ApiError, api, projectApi, request } from "../api/client";
import type { AlertSettings, Integration, IntegrationSummary, IntegrationType, TestAlertAnswer } from "./types";

const base = (fullPath: string) => `${projectApi(fullPath)}/alert_management`;
const keys = {
  all: (fullPath: string) => ["integrations", fullPath] as const,
  list: (fullPath: string) => ["integrations", fullPath, "list"] as const,
  one: (fullPath: string, type: IntegrationType, id: number) => ["integrations", fullPath, type, id] as const,
};

/** Where one integration lives in the REST API. */
function integrationUrl(fullPath: string, type: IntegrationType, id: number) {
  if (type === "http") return `${base(fullPath)}/http_integrations/${id}`;
  return `${base(fullPath)}/${type}_integration`;
}

export function useIntegrations(fullPath: string, enabled = true) {
  return useQuery({
    enabled,
    queryKey: keys.list(fullPath),
    queryFn: ({ signal }) => api.get<IntegrationSummary[]>(`${base(fullPath)}/integrations`, signal),
  });
}

export function useIntegration(fullPath: string, type: IntegrationType, id: number, enabled = true) {
  return useQuery({
    enabled,
    queryKey: keys.one(fullPath, type, id),
    queryFn: ({ signal }) => api.get<Integration>(integrationUrl(fullPath, type, id), signal),
  });
}

/** What the add form sends: an HTTP endpoint (named) or the project's Prometheus integration. */
export interface NewIntegration {
  type: "http" | "prometheus";
  name: string;
  active: boolean;
}

export function useCreateIntegration(fullPath: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: NewIntegration) =>
      input.type === "http"
        ? api.post<Integration>(`${base(fullPath)}/http_integrations`, { name: input.name, active: input.active })
        : api.put<Integration>(`${base(fullPath)}/prometheus_integration`, { active: input.active }),
    onSuccess: (integration) => {
      client.setQueryData(keys.one(fullPath, integration.type, integration.id), integration);
      return client.invalidateQueries({ queryKey: keys.list(fullPath) });
    },
  });
}

export function useUpdateIntegration(fullPath: string, type: IntegrationType, id: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: {
      name?: string;
      active: boolean;
      api_url?: string;
      rate_limit_per_minute?: number;
      auto_resolve_minutes?: number | null;
    }) => api.put<Integration>(integrationUrl(fullPath, type, id), input),
    onSuccess: (integration) => {
      client.setQueryData(keys.one(fullPath, type, id), integration);
      return client.invalidateQueries({ queryKey: keys.list(fullPath) });
    },
  });
}

export function useDeleteIntegration(fullPath: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => api.delete(integrationUrl(fullPath, "http", id)),
    onSuccess: () => client.invalidateQueries({ queryKey: keys.all(fullPath) }),
  });
}

export function useResetToken(fullPath: string, type: IntegrationType, id: number) {
  const client = useQueryClient();
  return useMutation({
    /** `gracePeriodSeconds`: how long the old key keeps working (0 = it stops at once). */
    mutationFn: (gracePeriodSeconds: number) =>
      api.post<Integration>(`${integrationUrl(fullPath, type, id)}/reset_token`, { grace_period_seconds: gracePeriodSeconds }),
    onSuccess: (integration) => client.setQueryData(keys.one(fullPath, type, id), integration),
  });
}

/** The payload goes as typed (it may be invalid JSON: the API says so). */
export function useSendTestAlert(fullPath: string, id: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (input: { payload: string; dryRun: boolean }) => {
      const path = `${integrationUrl(fullPath, "http", id)}/test_alert${input.dryRun ? "?dry_run=true" : ""}`;
      return (await request<TestAlertAnswer>(path, { method: "POST", body: input.payload, rawBody: true })).data;
    },
    onSuccess: (_answer, input) => {
      if (!input.dryRun) return client.invalidateQueries({ queryKey: ["alerts", fullPath] });
    },
  });
}

export interface OpsgenieLink {
  active: boolean;
  api_url: string;
}

export function useOpsgenie(fullPath: string, enabled = true) {
  return useQuery({
    enabled,
    queryKey: ["integrations", fullPath, "opsgenie"],
    queryFn: async ({ signal }): Promise<OpsgenieLink> => {
      try {
        const i = await api.get<Integration>(`${base(fullPath)}/opsgenie_integration`, signal);
        return { active: i.active, api_url: i.api_url ?? "" };
      } catch (err) {
        if (err instanceof ApiError && err.status === 404) return { active: false, api_url: "" };
        throw err;
      }
    },
  });
}

export function useSaveOpsgenie(fullPath: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: OpsgenieLink) => api.put<Integration>(`${base(fullPath)}/opsgenie_integration`, input),
    onSuccess: () => client.invalidateQueries({ queryKey: keys.all(fullPath) }),
  });
}

export function useAlertSettings(fullPath: string, enabled = true) {
  return useQuery({
    enabled,
    queryKey: ["alert-settings", fullPath],
    queryFn: ({ signal }) => api.get<AlertSettings>(`${base(fullPath)}/settings`, signal),
  });
}

export function useSaveAlertSettings(fullPath: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: AlertSettings) => api.put<AlertSettings>(`${base(fullPath)}/settings`, input),
    onSuccess: (settings) => client.setQueryData(["alert-settings", fullPath], settings),
  });
}

/** Creates or rotates (`set`) the signing secret of an HTTP endpoint, or removes it. */
export function useSigningSecret(fullPath: string, id: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (action: "set" | "remove") => {
      const url = `${integrationUrl(fullPath, "http", id)}/signing_secret`;
      if (action === "remove") {
        await api.delete(url);
        return null;
      }
      return (await api.post<{ signing_secret: string }>(url)).signing_secret;
    },
    onSuccess: () => client.invalidateQueries({ queryKey: keys.one(fullPath, "http", id) }),
  });
}
