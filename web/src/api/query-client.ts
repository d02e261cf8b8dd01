import { MutationCache, QueryCache, QueryClient } from "@tanstack/react-query";

/** A 401 anywhere means the session ended: the session query becomes "signed out". */
function onError(error: unknown) {
  if (error && typeof error === "object" && (error as { status?: number }).status === 401) {
    queryClient.setQueryData(["session"], null);
  }
}

export const queryClient = new QueryClient({
  queryCache: new QueryCache({ onError }),
  mutationCache: new MutationCache({ onError }),
  defaultOptions: {
    queries: {
      staleTime: 5_000,
      refetchOnWindowFocus: true,
      retry: (failures, error) => {
        const status = (error as { status?: number }).status ?? 0;
        // Client errors (401, 403, 404, 409...) are answers, not glitches.
        if (status >= 400 && status < 500) return false;
        return failures < 2;
      },
    },
  },
});
