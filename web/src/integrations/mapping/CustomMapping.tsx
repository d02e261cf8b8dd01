import { useId, useState } from "react";
import { useCurrentProject } from "../../projects/context";
import { ErrorMessage } from "../../ui/ErrorMessage";
import { Field } from "../../ui/Field";
import { Loading } from "../../ui/Loading";
import type { Integration } from "../types";
import { type MappedIntegration, savedSample, type usePayloadFields, useSaveMapping } from "./api";
import { ALERT_FIELDS, compatible, mappingOf, pathKey, selectionsOf } from "./fields";

/** What the page reads for the mapping: the fields of the parsed sample, which sample, and how to parse another. */
export interface MappingFields {
  fields: ReturnType<typeof usePayloadFields>;
  /** The sample the fields are of (null: none parsed yet). */
  parsed: string | null;
  onParse: (sample: string) => void;
}

/**
 * Custom field mapping (Premium): a sample payload, its fields parsed by the API, then one select
 * per alert field offering the parsed fields of a compatible type.
 */
export function CustomMapping({ integration, mapping }: { integration: Integration; mapping: MappingFields }) {
  const { project, fullPath } = useCurrentProject();
  const { fields, parsed, onParse } = mapping;
  const sampleId = useId();
  const saved = integration as MappedIntegration;
  const [sample, setSample] = useState(() => savedSample(integration));
  const [selections, setSelections] = useState<Record<string, string>>(() =>
    selectionsOf(saved.payload_attribute_mappings ?? {}, null),
  );
  const save = useSaveMapping(fullPath, integration.id);

  if ((project.tier ?? "free") === "free") {
    return (
      <section className="card" aria-labelledby={`${sampleId}-title`}>
        <h4 id={`${sampleId}-title`}>Custom mapping</h4>
        <p className="message info" role="note">
          Custom mapping of alert fields is available in the Premium and Ultimate tiers only. This project is on the Free tier:
          alerts are read with the default fields.
        </p>
      </section>
    );
  }

  const stale = parsed !== null && sample !== parsed;
  // Fields that the new sample no longer offers are dropped once it is parsed.
  const parse = () => onParse(sample);
  const rows = fields.data ?? [];
  const current = fields.data ? selectionsOf(mappingOf(selections, rows), rows) : selections;
  return (
    <section className="card stack" aria-labelledby={`${sampleId}-title`}>
      <h4 id={`${sampleId}-title`}>Custom mapping</h4>
      <p>
        Paste a sample payload from your monitoring tool, parse its fields, then choose which payload field fills each alert
        field.
      </p>
      <Field label="Sample payload (JSON)">
        {(control) => (
          <textarea {...control} className="mono" rows={10} value={sample} onChange={(e) => setSample(e.target.value)} />
        )}
      </Field>
      {stale && (
        <p className="message info" role="alert">
          The sample payload has changed. Parse it again: the mapping must be redone for the new fields.
        </p>
      )}
      <div className="actions">
        <button type="button" disabled={!sample.trim() || fields.isFetching} onClick={parse}>
          Parse payload fields
        </button>
      </div>
      {fields.isFetching && <Loading label="Parsing the sample payload" />}
      {fields.isError && <ErrorMessage error={fields.error} />}
      {fields.data && !stale && (
        <>
          {rows.length === 0 && <p className="empty">The sample has no string, date or array fields to map.</p>}
          <table>
            <caption>Payload alert key mapping</caption>
            <thead>
              <tr>
                <th scope="col">Alert field</th>
                <th scope="col">Payload alert key</th>
              </tr>
            </thead>
            <tbody>
              {ALERT_FIELDS.map((f) => (
                <tr key={f.name}>
                  <th scope="row">{f.label}</th>
                  <td>
                    <select
                      aria-label={`Payload field for ${f.label}`}
                      value={current[f.name] ?? ""}
                      onChange={(e) => setSelections((s) => ({ ...s, [f.name]: e.target.value }))}
                    >
                      <option value="">(default)</option>
                      {compatible(rows, f.types).map((p) => (
                        <option key={pathKey(p.path)} value={pathKey(p.path)}>
                          {p.label} ({p.type})
                        </option>
                      ))}
                    </select>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {save.isError && <ErrorMessage error={save.error} />}
          {save.isSuccess && (
            <p role="status" className="message success">
              Mapping saved.
            </p>
          )}
          <div className="actions">
            <button
              type="button"
              className="primary"
              disabled={save.isPending}
              onClick={() =>
                save.mutate({ payload_example: parsed ?? sample, payload_attribute_mappings: mappingOf(current, rows) })
              }
            >
              Save mapping
            </button>
          </div>
        </>
      )}
    </section>
  );
}
