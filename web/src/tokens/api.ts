import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api } from "../api/client";

export interface PersonalAccessToken {
  id: number;
  name: string;
  scopes: string[];
  expires_at: string | null;
  active: boolean;
  revoked: boolean;
  created_at?: string;
  last_used_at?: string | null;
  /** Only in the answer to the create call: shown once. */
  token?: string;
}

export const SCOPES = [
  { value: "api", help: "Full read and write access to the API." },
  { value: "read_api", help: "Read-only access to the API (GET only)." },
] as const;

const KEY = ["personal-access-tokens"] as const;

/** The caller's own tokens (newest first, never with the secret); the active ones are listed. */
export function useTokens() {
  return useQuery({
    queryKey: KEY,
    queryFn: ({ signal }) => api.get<PersonalAccessToken[]>("/api/v4/personal_access_tokens?per_page=100", signal),
  });
}

export function useCreateToken() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: { name: string; scopes: string[]; expires_at?: string }) =>
      api.post<PersonalAccessToken>("/api/v4/user/personal_access_tokens", input),
    onSuccess: () => client.invalidateQueries({ queryKey: KEY }),
  });
}

export function useRevokeToken() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => api.delete(`/api/v4/personal_access_tokens/${id}`),
    onSuccess: () => client.invalidateQueries({ queryKey: KEY }),
  });
}
