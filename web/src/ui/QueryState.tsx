import type { ReactNode } from "react";
import { ErrorMessage, isStatus } from "./ErrorMessage";
import { Loading } from "./Loading";

/** What QueryState reads of a TanStack query (a `useQuery` result fits). */
export interface QueryLike<T> {
  isPending: boolean;
  isError: boolean;
  error: unknown;
  data: T | undefined;
}

/** A query not started yet (e.g. a row's entry of `useQueries` before it exists): loading. */
export const PENDING: QueryLike<never> = { isPending: true, isError: false, error: null, data: undefined };

interface Props<T> {
  query: QueryLike<T>;
  /** The loading line, e.g. "Loading alerts" (shown as "Loading alerts…" in a `status` region). */
  loading?: string;
  /** Shown instead of the error when the API answered 404 (a details page: the 404 page). */
  notFound?: ReactNode;
  /** When the data counts as empty, `empty` is shown instead of the children. */
  isEmpty?: (data: T) => boolean;
  empty?: ReactNode;
  children: (data: T) => ReactNode;
}

/**
 * The one rendering of a query's states: loading, error (as the API words it), empty, data.
 * Pages fetch and hand each query to a QueryState; components below it receive the data.
 */
export function QueryState<T>({ query, loading, notFound, isEmpty, empty, children }: Props<T>) {
  if (query.isError) return notFound && isStatus(query.error, 404) ? notFound : <ErrorMessage error={query.error} />;
  if (query.isPending || query.data === undefined) return <Loading label={loading} />;
  if (isEmpty?.(query.data)) return typeof empty === "string" ? <p className="empty">{empty}</p> : empty;
  return children(query.data);
}
