/**
 * The cosmetic name segment of an HTTP Endpoint URL: lowercase, every run of characters outside
 * `[a-z0-9]` becomes one `-`, leading and trailing `-` trimmed, at most 63 characters;
 * `http-endpoint` when nothing is left.
 */
function slugify(name: string): string {
  const slug = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 63)
    .replace(/-+$/, "");
  return slug || "http-endpoint";
}

/** `${externalUrl}/<full_path>/alerts/notify/<slug>/<endpoint_identifier>.json` */
export function httpEndpointUrl(externalUrl: string, fullPath: string, name: string, endpointIdentifier: string): string {
  return `${externalUrl}/${fullPath}/alerts/notify/${slugify(name)}/${endpointIdentifier}.json`;
}

/** `${externalUrl}/<full_path>/prometheus/alerts/notify.json` */
export function prometheusUrl(externalUrl: string, fullPath: string): string {
  return `${externalUrl}/${fullPath}/prometheus/alerts/notify.json`;
}
