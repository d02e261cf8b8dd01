/** GitLab pagination: `page` from 1, `per_page` default 20, at most 100. */
export interface Page {
  page: number;
  perPage: number;
}

const DEFAULT_PER_PAGE = 20;
const MAX_PER_PAGE = 100;

/** Clamps raw numbers (0 or negative meaning "unset") into a valid page. */
export function toPage(page?: number, perPage?: number): Page {
  const p = page && page > 0 ? Math.floor(page) : 1;
  const pp = perPage && perPage > 0 ? Math.min(Math.floor(perPage), MAX_PER_PAGE) : DEFAULT_PER_PAGE;
  return { page: p, perPage: pp };
}

export function pageOffset(page: Page): number {
  return (page.page - 1) * page.perPage;
}
