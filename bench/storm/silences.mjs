// bench/storm.mjs helper: the "silenced" variant (issue 24) — the embedded default with N active
// silences in the loaded project, through the same Alertmanager-compatible API amtool uses. The
// mix is bench/silences-index.mjs's (4 in 5 name an alertname, host or service by equality, 1 in
// 5 only a regular expression), none matching the storm's alerts, plus two that each hold 1 alert
// in 100 (the flat posts by title, the batches by alertname): a silenced alert is stored and
// grouped as any other, with its `silenced_by` and a timer at the silence's end.
import * as L from "../alert-load.mjs";
import { spread } from "../lib/stats.mjs";
import { print } from "./report.mjs";

const eq = (name, value) => ({ name, value, isRegex: false, isEqual: true });
const re = (name, value) => ({ name, value, isRegex: true, isEqual: true });

function matchersOf(i) {
  switch (i % 5) {
    case 0:
      return [eq("alertname", `Alert${i}`), eq("env", "prod")];
    case 1:
      return [eq("host", `web-${i}`)];
    case 2:
      return [eq("service", `svc-${i}`), re("severity", "critical|high")];
    case 3:
      return [eq("alertname", `Alert${i}`), re("instance", `db-${i}:.*`)];
    default:
      return [re("alertname", `Maint${i}.*`)];
  }
}

/** Adds `n` active silences (an hour long) to the seeded project; resolves when all are in. */
export async function addSilences(url, seed, n) {
  const path = `/api/v4/projects/${seed.projectId}/alertmanager/api/v2/silences`;
  const startsAt = new Date(Date.now() - 60_000).toISOString();
  const endsAt = new Date(Date.now() + 3_600_000).toISOString();
  const post = (matchers, comment) =>
    L.http(url, "POST", path, seed.token, { matchers, startsAt, endsAt, createdBy: "storm", comment });
  // The storm's titles end in their counter ("storm <tag>-<n>", alertname "Storm<tag>-<n>").
  await post([re("title", "storm .*00")], "holds 1 flat post in 100");
  await post([re("alertname", "Storm.*00")], "holds 1 batch alert in 100");
  for (let i = 0; i < n - 2; i++) await post(matchersOf(i), "storm mix");
}

/**
 * Processing with the silences ÷ without, paired by round (the "silenced" and "local" columns of
 * one run): `[{ kind, ratios, median, min, max }]`.
 */
export function silenceRows(targets, rounds) {
  const local = targets.find((t) => t.variant === "local");
  const silenced = targets.find((t) => t.variant === "silenced");
  if (!local || !silenced) return [];
  return ["single", "batch"].flatMap((kind) => {
    const a = rounds[silenced.name]?.[kind] ?? [];
    const b = rounds[local.name]?.[kind] ?? [];
    const ratios = [];
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const x = a[i].processedPerSec;
      const y = b[i].processedPerSec;
      if (typeof x === "number" && typeof y === "number" && y > 0) ratios.push(x / y);
    }
    return ratios.length ? [{ kind, ratios, ...spread(ratios) }] : [];
  });
}

/** Prints `silenceRows` (issue 24's goal: ≥ 0.9 with 1,000 silences). */
export function silenceTable(rows, n) {
  if (!rows.length) return;
  console.log(`\nSilences (issue 24): processed alerts/s with ${n} active silences ÷ without, paired by round`);
  const f = (v) => v.toFixed(2);
  print([
    ["posts", "ratio median [min–max]", "goal"],
    ...rows.map((r) => [r.kind, `${f(r.median)} [${f(r.min)}–${f(r.max)}]`, "≥ 0.90"]),
  ]);
}
