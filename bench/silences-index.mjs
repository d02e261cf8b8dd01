// What matching alerts against a project's silences costs (issue 24): the per-project index of
// active silences (alert-service/src/domain/silences/active-index.ts) asked for 100-alert
// batches with 0, 100 and 1,000 active silences in the project. Pure CPU, no I/O; run after
// `npm run build`:  node bench/silences-index.mjs [--batches 2000]
import { parseArgs } from "node:util";
import { buildSilenceIndex } from "../alert-service/dist/domain/silences/active-index.js";

const { values } = parseArgs({ options: { batches: { type: "string", default: "2000" } } });
const batches = Number(values.batches);
const now = new Date();
const eq = (name, value) => ({ name, value, isRegex: false, isEqual: true });
const re = (name, value) => ({ name, value, isRegex: true, isEqual: true });

/** A realistic mix: most silences name an alert or a host; one in five is regex-only. */
function silences(n) {
  return Array.from({ length: n }, (_, i) => {
    const kind = i % 5;
    const matchers =
      kind === 0
        ? [eq("alertname", `Alert${i}`), eq("env", "prod")]
        : kind === 1
          ? [eq("host", `web-${i}`)]
          : kind === 2
            ? [eq("service", `svc-${i}`), re("severity", "critical|high")]
            : kind === 3
              ? [eq("alertname", `Alert${i}`), re("instance", `db-${i}:.*`)]
              : [re("alertname", `Maint${i}.*`), eq("env", "")];
    return {
      id: `s${String(i).padStart(5, "0")}`,
      projectId: 1,
      matchers,
      startsAt: new Date(now.getTime() - 60_000),
      endsAt: new Date(now.getTime() + 3_600_000),
      createdBy: "bench",
      comment: "",
      updatedAt: now,
    };
  });
}

const subjects = Array.from({ length: 100 }, (_, i) => ({
  labels: { alertname: `Alert${i * 7}`, instance: `db-${i}:9100`, env: "prod", job: "node" },
  title: `Alert${i * 7}`,
  severity: i % 2 ? "critical" : "medium",
  service: `svc-${i * 3}`,
  monitoringTool: "Prometheus",
  environment: "production",
  hosts: [`db-${i}:9100`, `web-${i}`],
  fingerprint: `f${i}`,
}));

function measure(n) {
  const index = buildSilenceIndex(silences(n));
  let silenced = 0;
  for (let b = 0; b < 200; b++) for (const s of subjects) index.verdict(s, now); // warm-up
  const start = process.hrtime.bigint();
  for (let b = 0; b < batches; b++) for (const s of subjects) silenced += index.verdict(s, now).silencedBy.length > 0 ? 1 : 0;
  const ns = Number(process.hrtime.bigint() - start);
  return { n, usPerBatch: ns / batches / 1000, silencedPerBatch: silenced / batches };
}

const rows = [0, 100, 1000].map(measure);
console.log(`node ${process.version}, ${batches} batches of 100 alerts`);
for (const r of rows)
  console.log(
    `${String(r.n).padStart(5)} active silences: ${r.usPerBatch.toFixed(1)} µs per 100-alert batch ` +
      `(${(r.usPerBatch / 100).toFixed(2)} µs per alert), ${r.silencedPerBatch} alerts silenced per batch`,
  );
