/**
 * A console address below a project: `/<full_path>` or `/<full_path>/-/<page...>`.
 * Returns the project's full path and the page segments after `/-/` (empty for the overview).
 */
export function splitProjectAddress(pathname: string): { fullPath: string; page: string[] } | null {
  const clean = pathname.replace(/^\/+|\/+$/g, "");
  if (!clean) return null;
  const at = clean.indexOf("/-/");
  const fullPath = decodeURIComponent(at === -1 ? clean : clean.slice(0, at));
  const page =
    at === -1
      ? []
      : clean
          .slice(at + 3)
          .split("/")
          .filter(Boolean);
  if (!fullPath || fullPath.startsWith("-")) return null;
  return { fullPath, page };
}

export const projectPath = (fullPath: string, ...page: (string | number)[]) =>
  page.length ? `/${fullPath}/-/${page.join("/")}` : `/${fullPath}`;
