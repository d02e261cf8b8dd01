/**
 * The MongoDB database of a service: `explicit` (MONGO_DB) when set, else the path of the
 * connection URL (`mongodb://host/<db>?…`, percent-decoded), else `fallback` (`tocsin_<service>`).
 */
export function mongoDbName(url: string | undefined, explicit: string | undefined, fallback: string): string {
  if (explicit) return explicit;
  const match = /^mongodb(?:\+srv)?:\/\/[^/?]+\/([^?]+)/.exec(url ?? "");
  return match?.[1] ? decodeURIComponent(match[1]) : fallback;
}
