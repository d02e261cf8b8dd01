/** A payload field as `payload_fields` answers it. */
export interface PayloadField {
  path: (string | number)[];
  label: string;
  type: "string" | "datetime" | "array" | string;
}

export interface FieldMapping {
  path: (string | number)[];
  type: string;
  label?: string;
}

/**
 * The alert fields a mapping may fill, with the payload field types each accepts (GitLab's
 * `mapping_transformations`; the API's own list in alert-service `MAPPABLE_FIELDS`).
 */
export const ALERT_FIELDS: { name: string; label: string; types: string[] }[] = [
  { name: "title", label: "Title", types: ["string"] },
  { name: "description", label: "Description", types: ["string"] },
  { name: "start_time", label: "Start time", types: ["datetime"] },
  { name: "end_time", label: "End time", types: ["datetime"] },
  { name: "service", label: "Service", types: ["string"] },
  { name: "monitoring_tool", label: "Monitoring tool", types: ["string"] },
  { name: "hosts", label: "Hosts", types: ["string", "array"] },
  { name: "severity", label: "Severity", types: ["string"] },
  { name: "fingerprint", label: "Fingerprint", types: ["string", "array"] },
  { name: "platform_environment_name", label: "Environment", types: ["string"] },
];

export const pathKey = (path: (string | number)[]) => JSON.stringify(path);

/** The fields offered for one alert field: those of a compatible type. */
export const compatible = (fields: PayloadField[], types: string[]) => fields.filter((f) => types.includes(f.type));

/** The stored mapping as select values (alert field → path key), keeping only what the fields still offer. */
export function selectionsOf(mapping: Record<string, FieldMapping>, fields: PayloadField[] | null): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of ALERT_FIELDS) {
    const m = mapping[f.name] ?? (f.name === "platform_environment_name" ? mapping.gitlab_environment_name : undefined);
    if (!m) continue;
    const key = pathKey(m.path);
    if (!fields || compatible(fields, f.types).some((p) => pathKey(p.path) === key)) out[f.name] = key;
  }
  return out;
}

/** The selections as the API stores them: `{field: {path, type, label}}`. */
export function mappingOf(selections: Record<string, string>, fields: PayloadField[]): Record<string, FieldMapping> {
  const out: Record<string, FieldMapping> = {};
  for (const f of ALERT_FIELDS) {
    const key = selections[f.name];
    const field = key ? compatible(fields, f.types).find((p) => pathKey(p.path) === key) : undefined;
    if (field) out[f.name] = { path: field.path, type: field.type, label: field.label };
  }
  return out;
}
