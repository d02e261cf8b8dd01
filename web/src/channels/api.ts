import { useMutation, useQueries, useQuery, useQueryClient } from "@tanstack/react-query";
import { ApiError, api, projectApi } from "../api/client";
import type { ChatIntegration, ChatName, Delivery, Hook, TestAnswer } from "./types";

const keys = {
  chat: (fullPath: string, name: ChatName) => ["channels", fullPath, "chat", name] as const,
  hooks: (fullPath: string) => ["channels", fullPath, "hooks"] as const,
  events: (fullPath: string, target: string) => ["channels", fullPath, "events", target] as const,
};

/** `hooks/<id>` or `integrations/<name>`: where a destination's delivery log is. */
export type Target = `hooks/${number}` | `integrations/${ChatName}`;

const chatQuery = (fullPath: string, name: ChatName) => ({
  queryKey: keys.chat(fullPath, name),
  queryFn: ({ signal }: { signal: AbortSignal }) =>
    api.get<ChatIntegration>(`${projectApi(fullPath)}/integrations/${name}`, signal).catch((err: unknown) => {
      if (err instanceof ApiError && err.status === 404) return null;
      throw err;
    }),
});

/** Each chat integration (in the order of `names`), null when it was never saved (404). */
export function useChatIntegrations(fullPath: string, names: readonly ChatName[]) {
  return useQueries({ queries: names.map((name) => chatQuery(fullPath, name)) });
}

export function useSaveChatIntegration(fullPath: string, name: ChatName) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: Record<string, unknown>) =>
      api.put<ChatIntegration>(`${projectApi(fullPath)}/integrations/${name}`, input),
    onSuccess: (saved) => client.setQueryData(keys.chat(fullPath, name), saved),
  });
}

export function useTestChatIntegration(fullPath: string, name: ChatName) {
  return useMutation({
    mutationFn: () => api.post<TestAnswer>(`${projectApi(fullPath)}/integrations/${name}/test`),
  });
}

export function useHooks(fullPath: string) {
  return useQuery({
    queryKey: keys.hooks(fullPath),
    queryFn: ({ signal }) => api.get<Hook[]>(`${projectApi(fullPath)}/hooks`, signal),
  });
}

export function useAddHook(fullPath: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: Record<string, unknown>) => api.post<Hook>(`${projectApi(fullPath)}/hooks`, input),
    onSuccess: () => client.invalidateQueries({ queryKey: keys.hooks(fullPath) }),
  });
}

export function useUpdateHook(fullPath: string, id: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: Record<string, unknown>) => api.put<Hook>(`${projectApi(fullPath)}/hooks/${id}`, input),
    onSuccess: () => client.invalidateQueries({ queryKey: keys.hooks(fullPath) }),
  });
}

export function useDeleteHook(fullPath: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => api.delete(`${projectApi(fullPath)}/hooks/${id}`),
    onSuccess: () => client.invalidateQueries({ queryKey: keys.hooks(fullPath) }),
  });
}

/** A new signing secret; the replaced one keeps signing beside it for `gracePeriodSeconds` (0 = it stops at once). */
export function useRotateHookSecret(fullPath: string, id: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (gracePeriodSeconds: number) =>
      api.post<Hook>(`${projectApi(fullPath)}/hooks/${id}/signing_secret`, { grace_period_seconds: gracePeriodSeconds }),
    onSuccess: () => client.invalidateQueries({ queryKey: keys.hooks(fullPath) }),
  });
}

/** The recent deliveries of each target (a hook's or a chat integration's), in the order of `targets`. */
export function useDeliveries(fullPath: string, targets: readonly Target[]) {
  return useQueries({
    queries: targets.map((target) => ({
      queryKey: keys.events(fullPath, target),
      queryFn: ({ signal }: { signal: AbortSignal }) => api.get<Delivery[]>(`${projectApi(fullPath)}/${target}/events`, signal),
    })),
  });
}

export function useResend(fullPath: string, target: Target) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => api.post<Delivery>(`${projectApi(fullPath)}/${target}/events/${id}/resend`),
    onSuccess: () => client.invalidateQueries({ queryKey: keys.events(fullPath, target) }),
  });
}
