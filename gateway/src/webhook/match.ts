import { parse as parseUrl } from "node:url";

/** Which integration a webhook URL names (PRODUCT.md section 5). */
export type EndpointKind = "http" | "http_legacy" | "prometheus";

export interface WebhookRoute {
  /** The project's full path as written in the URL (namespace segments and project path). */
  fullPath: string;
  kind: EndpointKind;
  /** For `http`: the endpoint identifier, lowercased; empty otherwise. */
  identifier: string;
  /** False when the URL has the webhook's shape but an identifier outside `[A-Za-z0-9]+`. */
  valid: boolean;
}

// A namespace or project path segment (GitLab: letters, digits, `_`, `-`, `.`; not `-`/`.` first).
const SEGMENT = "[A-Za-z0-9_][A-Za-z0-9_.-]*";
// At least `<namespace>/<project>`.
const FULL_PATH = `(${SEGMENT}(?:/${SEGMENT})+)`;
const PROMETHEUS = new RegExp(`^/${FULL_PATH}/prometheus/alerts/notify(?:\\.json)?$`);
const HTTP = new RegExp(`^/${FULL_PATH}/alerts/notify/([^/]+)/([^/]+)$`);
const LEGACY = new RegExp(`^/${FULL_PATH}/alerts/notify(?:\\.json)?$`);
const IDENTIFIER = /^[A-Za-z0-9]{1,255}$/;
const MAX_PATH_LENGTH = 2048;

/**
 * Matches a request path (not decoded) against the three webhook URL shapes; null when it is
 * none of them. The `<name-slug>` segment is cosmetic; `.json` is optional everywhere.
 */
export function matchWebhookPath(path: string): WebhookRoute | null {
  if (path.length > MAX_PATH_LENGTH || !path.includes("/alerts/notify")) return null;
  const http = HTTP.exec(path);
  if (http) {
    const raw = (http[3] as string).replace(/\.json$/, "");
    const valid = IDENTIFIER.test(raw);
    return { fullPath: http[1] as string, kind: "http", identifier: valid ? raw.toLowerCase() : "", valid };
  }
  const prometheus = PROMETHEUS.exec(path);
  // `group/prometheus/alerts/notify` is the legacy URL of project `group/prometheus`, since a
  // full path needs a namespace and a project.
  if (prometheus) return { fullPath: prometheus[1] as string, kind: "prometheus", identifier: "", valid: true };
  const legacy = LEGACY.exec(path);
  if (legacy) return { fullPath: legacy[1] as string, kind: "http_legacy", identifier: "", valid: true };
  return null;
}

/**
 * The path of a request target exactly as express sees it (`parseurl`): the fast case is a target
 * starting with `/` without a character that makes parseurl fall back to `url.parse`.
 */
export function requestPath(url: string): string {
  if (url.charCodeAt(0) !== 0x2f /* / */) return parseUrl(url).pathname ?? "";
  let end = url.length;
  for (let i = 1; i < url.length; i++) {
    const c = url.charCodeAt(i);
    if (c === 0x3f /* ? */) end = Math.min(end, i);
    else if (c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d || c === 0x20 || c === 0x23 || c === 0xa0 || c === 0xfeff) {
      return parseUrl(url).pathname ?? "";
    }
  }
  return end === url.length ? url : url.slice(0, end);
}
