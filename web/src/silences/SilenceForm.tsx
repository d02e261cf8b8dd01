import { type FormEvent, useState } from "react";
import { ErrorMessage } from "../ui/ErrorMessage";
import { Field } from "../ui/Field";
import { useCreateSilence } from "./api";
import { matcherOf, OPERATORS, type Operator, operatorOf } from "./matchers";
import type { Matcher, Silence } from "./types";

interface Row {
  key: number;
  name: string;
  op: Operator;
  value: string;
}

let nextKey = 1;
const rowOf = (m?: Matcher): Row => ({
  key: nextKey++,
  name: m?.name ?? "",
  op: m ? operatorOf(m) : "=",
  value: m?.value ?? "",
});

const DURATIONS = [
  { label: "1 hour", hours: 1 },
  { label: "2 hours", hours: 2 },
  { label: "4 hours", hours: 4 },
  { label: "8 hours", hours: 8 },
  { label: "1 day", hours: 24 },
  { label: "3 days", hours: 72 },
  { label: "1 week", hours: 168 },
];

const OPERATOR_LABELS: Record<Operator, string> = {
  "=": "= equals",
  "!=": "!= does not equal",
  "=~": "=~ matches regex",
  "!~": "!~ does not match regex",
};

/** Creates a silence starting now; the API validates it and answers in Alertmanager's words. */
export function SilenceForm({
  fullPath,
  initial,
  onDone,
  onCancel,
}: {
  fullPath: string;
  initial: Matcher[];
  onDone: (silence: Silence) => void;
  onCancel: () => void;
}) {
  const [rows, setRows] = useState<Row[]>(() => (initial.length ? initial.map(rowOf) : [rowOf()]));
  const [hours, setHours] = useState("2");
  const [comment, setComment] = useState("");
  const create = useCreateSilence(fullPath);
  const change = (key: number, patch: Partial<Row>) => setRows((all) => all.map((r) => (r.key === key ? { ...r, ...patch } : r)));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate(
      {
        matchers: rows.map((r) => matcherOf(r.name.trim(), r.op, r.value)),
        ends_at: new Date(Date.now() + Number(hours) * 3_600_000).toISOString(),
        comment,
      },
      { onSuccess: onDone },
    );
  };
  return (
    <form className="stack card" onSubmit={submit} aria-labelledby="silence-form-title">
      <h2 id="silence-form-title">New silence</h2>
      <p className="muted">Alerts that every matcher selects send no notification until the silence ends.</p>
      {rows.map((r, i) => (
        <fieldset key={r.key} className="toolbar">
          <legend>Matcher {i + 1}</legend>
          <Field label="Label name" inline>
            {(control) => (
              <input
                {...control}
                required
                maxLength={1000}
                value={r.name}
                onChange={(e) => change(r.key, { name: e.target.value })}
              />
            )}
          </Field>
          <Field label="Operator" inline>
            {(control) => (
              <select {...control} value={r.op} onChange={(e) => change(r.key, { op: e.target.value as Operator })}>
                {OPERATORS.map((op) => (
                  <option key={op} value={op}>
                    {OPERATOR_LABELS[op]}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field label="Value" inline>
            {(control) => (
              <input {...control} maxLength={1000} value={r.value} onChange={(e) => change(r.key, { value: e.target.value })} />
            )}
          </Field>
          {rows.length > 1 && (
            <button type="button" onClick={() => setRows((all) => all.filter((x) => x.key !== r.key))}>
              Remove matcher {i + 1}
            </button>
          )}
        </fieldset>
      ))}
      {rows.length < 50 && (
        <div className="actions">
          <button type="button" onClick={() => setRows((all) => [...all, rowOf()])}>
            Add matcher
          </button>
        </div>
      )}
      <Field label="Duration">
        {(control) => (
          <select {...control} value={hours} onChange={(e) => setHours(e.target.value)}>
            {DURATIONS.map((d) => (
              <option key={d.hours} value={String(d.hours)}>
                {d.label}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label="Comment">
        {(control) => <textarea {...control} maxLength={10_000} value={comment} onChange={(e) => setComment(e.target.value)} />}
      </Field>
      {create.isError && <ErrorMessage error={create.error} />}
      <div className="actions">
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className="primary" disabled={create.isPending}>
          Create silence
        </button>
      </div>
    </form>
  );
}
