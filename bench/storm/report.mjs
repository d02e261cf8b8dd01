// bench/storm.mjs helper: the printed tables (three columns — baseline, Alertmanager, Tocsin —
// with the ratios) and the verdict per target of issue 9.
import { median, spread } from "../lib/stats.mjs";

const n0 = (v) => (typeof v === "number" && Number.isFinite(v) ? Math.round(v).toLocaleString("en-US") : "—");
const n1 = (v) => (typeof v === "number" && Number.isFinite(v) ? (Math.round(v * 10) / 10).toString() : "—");
const pct = (a, b) => (a && b ? `${((100 * a) / b).toFixed(1)} %` : "—");
const range = (xs, fmt = n0) => {
  const s = spread(xs);
  return s.median === null ? "—" : xs.length > 1 ? `${fmt(s.median)} [${fmt(s.min)}–${fmt(s.max)}]` : fmt(s.median);
};

/** Prints rows as aligned columns. */
export function print(rows) {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => String(r[i] ?? "").length)));
  for (const r of rows)
    console.log(
      r
        .map((c, i) => String(c ?? "").padEnd(widths[i]))
        .join("  ")
        .trimEnd(),
    );
}

/** CPU ms per alert of each process, medians over the rounds ("gateway 0.41, alert 0.62, ..."). */
function cpuCell(rounds) {
  const names = Object.keys(rounds[0]?.cpuMsPerAlert ?? {});
  const cell = (k) => {
    const m = median(rounds.map((r) => r.cpuMsPerAlert[k]));
    return m === null ? "—" : String(Math.round(m * 1000) / 1000);
  };
  return names.map((k) => `${k} ${cell(k)}`).join(", ");
}

/** Answers >= 400 and socket errors over all the rounds. */
const failures = (rounds) => `${rounds.reduce((a, r) => a + r.non2xx, 0)} / ${rounds.reduce((a, r) => a + r.errors, 0)}`;

/** Single-post or batch table: one column per target, then Tocsin's ratios to the other two. */
export function kindTable(title, kind, targets, rounds) {
  console.log(`\n${title}`);
  const base = targets[0];
  const am = targets[1];
  const toc = targets.slice(2);
  const r = (t) => rounds[t.name]?.[kind] ?? [];
  const field = kind === "single" ? "rps" : "alertsPerSec";
  const rows = [["", ...targets.map((t) => t.name), ...toc.flatMap((t) => [`${t.variant}/baseline`, `${t.variant}/AM`])]];
  const ratios = (f) =>
    toc.flatMap((t) => {
      const v = median(r(t).map((x) => x[f]));
      return [pct(v, median(r(base).map((x) => x[field]))), pct(v, median(r(am).map((x) => x[field])))];
    });
  rows.push([
    kind === "single" ? "requests/s" : "alerts/s accepted",
    ...targets.map((t) => range(r(t).map((x) => x[field]))),
    ...ratios(field),
  ]);
  if (kind === "batch")
    rows.push([
      "alerts/s processed",
      ...targets.map((t) => (t.settle ? range(r(t).map((x) => x.processedPerSec)) : "= accepted")),
      ...ratios("processedPerSec"),
    ]);
  else rows.push(["processed alerts/s", ...targets.map((t) => (t.settle ? range(r(t).map((x) => x.processedPerSec)) : "—"))]);
  rows.push([
    "backlog when the load stopped, % of accepted",
    ...targets.map((t) =>
      t.settle
        ? range(
            r(t)
              .map((x) => x.backlogPct)
              .filter((v) => typeof v === "number"),
            n1,
          )
        : "—",
    ),
  ]);
  // The backlog bound (INGEST_BACKLOG_LIMIT): requests held before queueing, their mean hold.
  rows.push([
    "requests held by the backlog bound (mean ms)",
    ...targets.map((t) => {
      const held = r(t)
        .map((x) => x.held)
        .filter(Boolean);
      if (!t.settle || held.length === 0) return "—";
      const requests = held.reduce((a, h) => a + h.requests, 0);
      const ms = held.reduce((a, h) => a + h.meanMs * h.requests, 0);
      const overdue = held.reduce((a, h) => a + h.overdue, 0);
      return `${requests} (${requests ? Math.round(ms / requests) : 0} ms${overdue ? `, ${overdue} overdue` : ""})`;
    }),
  ]);
  rows.push([
    "p50 ms",
    ...targets.map((t) =>
      range(
        r(t).map((x) => x.p50),
        n1,
      ),
    ),
  ]);
  rows.push([
    "p99 ms",
    ...targets.map((t) =>
      range(
        r(t).map((x) => x.p99),
        n1,
      ),
    ),
  ]);
  rows.push(["non-2xx / socket errors", ...targets.map((t) => failures(r(t)))]);
  rows.push(["CPU ms per alert", ...targets.map((t) => cpuCell(r(t)))]);
  rows.push(["machine busy %", ...targets.map((t) => range(r(t).map((x) => x.machinePct)))]);
  if (toc.length)
    rows.push([
      "alert-service's busiest thread: on a core / waiting for one, % of the time",
      "",
      "",
      ...toc.map((t) => {
        const on = range(r(t).map((x) => x.busiest?.runPct));
        const waiting = range(r(t).map((x) => x.busiest?.waitPct));
        return `${on} / ${waiting}`;
      }),
    ]);
  if (toc.length) rows.push(["log bytes per alert", "", "", ...toc.map((t) => range(r(t).map((x) => x.logBytesPerAlert)))]);
  print(rows);
}

const verdict = (ok) => (ok === null || ok === undefined ? "—" : ok ? "met" : "MISSED");

/** One line per target of issue 9 and Tocsin variant: measured figure, target, verdict. */
export function targetsTable(targets, rounds, extra) {
  console.log("\nIssue 9 targets");
  const [base, am, ...toc] = targets;
  const m = (t, kind, f) => median((rounds[t.name]?.[kind] ?? []).map((x) => x[f]));
  const rows = [["target", "variant", "measured", "target", "verdict"]];
  for (const t of toc) {
    const e = extra[t.name] ?? {};
    const single = m(t, "single", "rps");
    const baseRps = m(base, "single", "rps");
    if (single !== null)
      rows.push([
        "1 single posts",
        t.variant,
        `${n0(single)}/s = ${pct(single, baseRps)} of baseline`,
        "≥ 25 %",
        verdict(single / baseRps >= 0.25),
      ]);
    const p = e.paced;
    if (p) {
      rows.push([
        "2 queue depth @80 %",
        t.variant,
        `max ${n0(p.depthMax)} = ${p.depthSeconds} s of traffic (${n0(p.offered)}/s)`,
        "< 1 s",
        verdict(p.depthSeconds < 1),
      ]);
      rows.push([
        "2 accept→visible p99",
        t.variant,
        `${n0(p.visible.p99)} ms (${p.visible.seen}/${p.visible.sent}, lost ${p.visible.lost})`,
        "< 1,000 ms",
        verdict(p.visible.p99 < 1000 && p.visible.lost === 0),
      ]);
      rows.push([
        "2 drain after stop",
        t.variant,
        p.drainMs === null ? "not drained" : `${n0(p.drainMs)} ms`,
        "≤ 1,000 ms",
        verdict(p.drainMs !== null && p.drainMs <= 1000),
      ]);
    }
    const acc = m(t, "batch", "alertsPerSec");
    const proc = m(t, "batch", "processedPerSec");
    const amRate = m(am, "batch", "alertsPerSec");
    if (acc !== null)
      rows.push([
        "3 batches (alerts/s)",
        t.variant,
        `accepted ${n0(acc)} (${pct(acc, amRate)}), processed ${n0(proc)} (${pct(proc, amRate)}) of AM ${n0(amRate)}`,
        "≥ Alertmanager",
        verdict(acc >= amRate && proc !== null && proc >= amRate),
      ]);
    const h = e.half;
    if (h)
      rows.push([
        "4 accept p99 @50 %",
        t.variant,
        `${n1(h.tocsin.p99)} ms at ${n0(h.tocsin.offered)}/s (baseline ${n1(h.baseline.p99)} ms)`,
        "< 25 ms",
        verdict(h.tocsin.p99 < 25),
      ]);
    if (h)
      rows.push([
        "4 CPU ms per alert @50 %",
        t.variant,
        `${Object.entries(h.tocsin.cpuMsPerAlert)
          .map(([k, v]) => `${k} ${v}`)
          .join(", ")}; baseline ${h.baseline.cpuMsPerAlert.baseline} per request`,
        "reported",
        "—",
      ]);
    const c = e.correctness;
    if (c)
      rows.push([
        "5 one fingerprint ×200",
        t.variant,
        `${c.alerts} alert(s), events ${c.events}`,
        "1 alert, events 200",
        verdict(c.ok),
      ]);
  }
  print(rows);
}
