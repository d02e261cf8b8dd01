import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, projectApi } from "../../api/client";
import type { Integration } from "../types";
import type { FieldMapping, PayloadField } from "./fields";

const base = (fullPath: string) => `${projectApi(fullPath)}/alert_management`;

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
