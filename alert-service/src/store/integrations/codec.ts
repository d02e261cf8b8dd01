import type { IntegrationType } from "../../domain/integrations/types.js";
import type { PayloadMapping } from "../../domain/types.js";

/** HTTP names are unique per project case-insensitively; prometheus/opsgenie are singletons. */
export function uniqueKeyOf(type: IntegrationType, name: string): string {
  return type === "http" ? `http:${name.trim().toLowerCase()}` : type;
}

export function mappingToText(mapping: PayloadMapping | null): string | null {
  return mapping && Object.keys(mapping).length > 0 ? JSON.stringify(mapping) : null;
}

export function mappingFromText(text: string | null | undefined): PayloadMapping | null {
  return text ? (JSON.parse(text) as PayloadMapping) : null;
}
