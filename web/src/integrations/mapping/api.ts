import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, projectApi } from "../../api/client";
import type { Integration } from "../types";
import type { FieldMapping, PayloadField } from "./fields";

const base = (fullPath: string) => `${projectApi(fullPath)}/alert_management`;

const hasKeys = (v: unknown) => !!v && typeof v === "object" && Object.keys(v).length > 0;

/** The integration as the mapping reads it: its saved sample payload and mappings (Premium). */
export type MappedIntegration = Integration & {
  payload_example?: unknown;
  payload_attribute_mappings?: Record<string, FieldMapping>;
};

/** The saved sample payload, pretty-printed; "" when none. */
export function savedSample(integration: Integration | undefined): string {
  const example = (integration as MappedIntegration | undefined)?.payload_example;
  return hasKeys(example) ? JSON.stringify(example, null, 2) : "";
}

/** The fields of a sample payload (Premium); `sample` null = not asked yet. */
export function usePayloadFields(fullPath: string, sample: string | null) {
  return useQuery({
    queryKey: ["payload-fields", fullPath, sample],
    queryFn: () => api.post<PayloadField[]>(`${base(fullPath)}/payload_fields`, { payload_example: sample }),
    enabled: sample !== null,
    staleTime: Number.POSITIVE_INFINITY,
  });
}

export function useSaveMapping(fullPath: string, id: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: { payload_example: string; payload_attribute_mappings: Record<string, FieldMapping> }) =>
      api.put<Integration>(`${base(fullPath)}/http_integrations/${id}`, input),
    onSuccess: (integration) => client.setQueryData(["integrations", fullPath, "http", id], integration),
  });
}
