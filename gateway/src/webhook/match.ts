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
