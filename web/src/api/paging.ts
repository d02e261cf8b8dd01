/** GitLab's pagination headers. */
export interface PageInfo {
  total: number;
  totalPages: number;
  page: number;
  perPage: number;
}

export function pageInfo(headers: Headers): PageInfo {
  const num = (name: string, fallback: number) => {
    const v = Number(headers.get(name));
    return Number.isFinite(v) && headers.get(name) !== null && headers.get(name) !== "" ? v : fallback;
  };
  return {
    total: num("X-Total", 0),
    totalPages: num("X-Total-Pages", 1),
    page: num("X-Page", 1),
    perPage: num("X-Per-Page", 20),
  };
}

export function query(params: Record<string, string | number | boolean | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== "") q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : "";
}
