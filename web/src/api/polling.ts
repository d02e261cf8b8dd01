import { hashKey, type Query, type QueryFunctionContext, type QueryKey } from "@tanstack/react-query";

/**
 * Polls that back off when the server is slow to answer them. A page polls so that new alerts
 * appear without a reload; every poll is also work for the server and its store. Where a list's
 * query is slow (a MongoDB-mode store without the index it needs, e.g. FerretDB 1.x, which sorts
 * and counts a project's alerts by reading them all), a fixed interval would keep the store busy
 * with the console's reads for as long as the page is open, taking its time from processing. So
 * the next poll waits at least BACKOFF times as long as the last answer took: the console never
 * keeps a query in flight more than about a sixth of the time (docs/console.md, "Polling").
 */
const BACKOFF = 5;
/** Queries whose last duration is remembered (each filter and page is a query of its own). */
const MAX_REMEMBERED = 200;

/** The interval after an answer that took `lastMs`: the page's own, or BACKOFF × lastMs when longer. */
export function nextPollMs(baseMs: number, lastMs: number | undefined): number {
  return Math.max(baseMs, Math.round((lastMs ?? 0) * BACKOFF));
}

/** Polling that remembers how long each query's last fetch took; `now` is the clock (tests give their own). */
export function createPolling(now: () => number = () => performance.now()) {
  const took = new Map<string, number>();
  const remember = (hash: string, ms: number) => {
    took.delete(hash);
    took.set(hash, ms);
    if (took.size > MAX_REMEMBERED) took.delete(took.keys().next().value as string);
  };
  return {
    /**
     * A query's options, polled every `baseMs` or slower: its fetch is timed, and its
     * `refetchInterval` follows the last one's duration (`nextPollMs`).
     */
    polled<T, K extends QueryKey>(
      baseMs: number,
      options: { queryKey: K; queryFn: (ctx: QueryFunctionContext<K>) => Promise<T> },
    ) {
      return {
        queryKey: options.queryKey,
        queryFn: async (ctx: QueryFunctionContext<K>): Promise<T> => {
          const started = now();
          try {
            return await options.queryFn(ctx);
          } finally {
            remember(hashKey(ctx.queryKey), now() - started);
          }
        },
        refetchInterval: (query: Query<T, Error, T, K>) => nextPollMs(baseMs, took.get(query.queryHash)),
      };
    },
  };
}

export const { polled } = createPolling();
