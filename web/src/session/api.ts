import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { ApiError, api, SESSION_KEY } from "../api/client";
import type { Session } from "../api/types";

/** The signed-in session, or null when signed out (GET /-/session answers 401). */
export function useSession() {
  return useQuery({
    queryKey: SESSION_KEY,
    queryFn: async ({ signal }) => {
      try {
        return await api.get<Session>("/-/session", signal);
      } catch (err) {
        if (err instanceof ApiError && err.status === 401) return null;
        throw err;
      }
    },
    staleTime: Number.POSITIVE_INFINITY,
  });
}

/** The signed-in user; only inside <RequireSession>. */
export function useCurrentUser() {
  const { data } = useSession();
  if (!data) throw new Error("useCurrentUser outside a signed-in page");
  return data.user;
}

export function useSignIn() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: { login: string; password: string }) => api.post<Session>("/-/session", input),
    onSuccess: (session) => {
      client.clear();
      client.setQueryData(SESSION_KEY, session);
    },
  });
}

export function useSignOut() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => api.delete("/-/session"),
    onSettled: () => {
      client.clear();
      client.setQueryData(SESSION_KEY, null);
    },
  });
}
