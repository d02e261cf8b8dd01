import { type FormEvent, useState } from "react";
import type { Schedule } from "../oncall/api";
import { ErrorMessage } from "../ui/ErrorMessage";
import { Field } from "../ui/Field";
import { type Policy, type PolicyBody, useSavePolicy } from "./api";

interface RuleDraft {
  key: number;
  status: string;
  minutes: string;
  target: "schedule" | "user";
  scheduleIid: string;
  username: string;
}

let nextKey = 1;
const newRule = (): RuleDraft => ({
  key: nextKey++,
  status: "acknowledged",
  minutes: "0",
  target: "schedule",
  scheduleIid: "",
  username: "",
});

function draftsOf(policy: Policy | undefined): RuleDraft[] {
  if (!policy) return [newRule()];
  return policy.rules.map((r) => ({
    key: nextKey++,
    status: r.status,
    minutes: String(r.elapsed_time_seconds / 60),
    target: r.oncall_schedule ? "schedule" : "user",
    scheduleIid: r.oncall_schedule ? String(r.oncall_schedule.iid) : "",
    username: r.user?.username ?? "",
  }));
}

interface Props {
  fullPath: string;
  policy?: Policy;
  /** The project's on-call schedules (a rule may page one), read by the page. */
  schedules: Schedule[];
  onDone: () => void;
}

/** Creates the project's policy or edits it; the API checks every rule and answers in its own words. */
export function PolicyForm({ fullPath, policy, schedules, onDone }: Props) {
  const [name, setName] = useState(policy?.name ?? "");
  const [description, setDescription] = useState(policy?.description ?? "");
  const [rules, setRules] = useState<RuleDraft[]>(() => draftsOf(policy));
  const [repeatMinutes, setRepeatMinutes] = useState(
    policy?.repeat_every_seconds ? String(policy.repeat_every_seconds / 60) : "",
  );
  const [maxRepeats, setMaxRepeats] = useState(String(policy?.max_repeats ?? 0));
  const save = useSavePolicy(fullPath);
  const change = (key: number, patch: Partial<RuleDraft>) =>
    setRules((all) => all.map((r) => (r.key === key ? { ...r, ...patch } : r)));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const body: PolicyBody = {
      name: name.trim(),
      description,
      rules: rules.map((r) => ({
        status: r.status,
        elapsed_time_seconds: Math.round(Number(r.minutes) * 60),
        ...(r.target === "schedule"
          ? { oncall_schedule_iid: Number(r.scheduleIid) }
          : { username: r.username.trim().replace(/^@/, "") }),
      })),
      repeat_every_seconds: repeatMinutes === "" ? null : Math.round(Number(repeatMinutes) * 60),
      max_repeats: Number(maxRepeats),
    };
    save.mutate({ id: policy?.id, body }, { onSuccess: onDone });
  };
  return (
    <form className="stack card" onSubmit={submit} aria-labelledby="policy-form-title">
      <h2 id="policy-form-title">{policy ? `Edit ${policy.name}` : "Add an escalation policy"}</h2>
      <Field label="Policy name">
        {(control) => <input {...control} required maxLength={72} value={name} onChange={(e) => setName(e.target.value)} />}
      </Field>
      <Field label="Description (optional)">
        {(control) => <input {...control} maxLength={160} value={description} onChange={(e) => setDescription(e.target.value)} />}
      </Field>
      {rules.map((r, i) => (
        <fieldset key={r.key} className="stack policy-rule">
          <legend>Rule {i + 1}</legend>
          <Field label="IF alert is not">
            {(control) => (
              <select {...control} value={r.status} onChange={(e) => change(r.key, { status: e.target.value })}>
                <option value="acknowledged">acknowledged</option>
                <option value="resolved">resolved</option>
              </select>
            )}
          </Field>
          <Field label="in (minutes)">
            {(control) => (
              <input
                {...control}
                type="number"
                min={0}
                max={1440}
                required
                value={r.minutes}
                onChange={(e) => change(r.key, { minutes: e.target.value })}
              />
            )}
          </Field>
          <Field label="THEN email">
            {(control) => (
              <select
                {...control}
                value={r.target}
                onChange={(e) => change(r.key, { target: e.target.value as RuleDraft["target"] })}
              >
                <option value="schedule">on-call user in schedule</option>
                <option value="user">user</option>
              </select>
            )}
          </Field>
          {r.target === "schedule" ? (
            <Field label="Schedule">
              {(control) => (
                <select
                  {...control}
                  required
                  value={r.scheduleIid}
                  onChange={(e) => change(r.key, { scheduleIid: e.target.value })}
                >
                  <option value="">Select a schedule</option>
                  {schedules.map((s) => (
                    <option key={s.iid} value={String(s.iid)}>
                      {s.name}
                    </option>
                  ))}
                </select>
              )}
            </Field>
          ) : (
            <Field label="Username">
              {(control) => (
                <input {...control} required value={r.username} onChange={(e) => change(r.key, { username: e.target.value })} />
              )}
            </Field>
          )}
          {rules.length > 1 && (
            <button type="button" onClick={() => setRules((all) => all.filter((x) => x.key !== r.key))}>
              Remove rule {i + 1}
            </button>
          )}
        </fieldset>
      ))}
      {rules.length < 10 && (
        <div className="actions">
          <button type="button" onClick={() => setRules((all) => [...all, newRule()])}>
            Add rule
          </button>
        </div>
      )}
      <Field label="Repeat every (minutes; empty = run the rules once)">
        {(control) => (
          <input
            {...control}
            type="number"
            min={1}
            max={1440}
            value={repeatMinutes}
            onChange={(e) => setRepeatMinutes(e.target.value)}
          />
        )}
      </Field>
      <Field label="Repeat at most (times)">
        {(control) => (
          <input
            {...control}
            type="number"
            min={0}
            max={9}
            required
            value={maxRepeats}
            onChange={(e) => setMaxRepeats(e.target.value)}
          />
        )}
      </Field>
      {save.isError && <ErrorMessage error={save.error} />}
      <div className="actions">
        <button type="submit" className="primary" disabled={save.isPending}>
          {policy ? "Save policy" : "Add policy"}
        </button>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}
