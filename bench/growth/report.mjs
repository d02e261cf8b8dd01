// bench/growth.mjs helper: the printed table (Markdown) — per mode, each figure at the start and at
// the end (and at each checkpoint) with end ÷ start, the references, and --console-poll's ratios.

/** Three significant digits (thousands grouped). */
const fmt = (x) => (x === undefined ? "—" : x >= 100 ? Math.round(x).toLocaleString("en-US") : String(Number(x.toPrecision(3))));

/** The table of `results` (runMode's, one per mode; `--sample-only` ones are left out); `opt` for the deadline's label. */
export function report(results, opt) {
  const lines = [];
  lines.push(`| mode (size start → end) | figure | start | end | end ÷ start |`, `|---|---|---|---|---|`);
  for (const r of results) {
    if (r.only) continue; // logged as it is
    const name = `${r.mode} (${fmt(r.start.list.total)} → ${fmt(r.end.list.total)})`;
    const rel = (e, s) => (e / s).toFixed(2);
    for (const c of r.checkpoints) {
      const at = `${r.mode} (${fmt(r.start.list.total)} → ${fmt(c.list.total)}, checkpoint)`;
      lines.push(
        `| ${at} | intake, new alerts/s | ${fmt(r.start.intake.rate)} | ${fmt(c.intake.rate)} | **${rel(c.intake.rate, r.start.intake.rate)}** |`,
      );
      lines.push(
        `| ${at} | mixed, jobs/s | ${fmt(r.start.mixed.rate)} | ${fmt(c.mixed.rate)} | **${rel(c.mixed.rate, r.start.mixed.rate)}** |`,
      );
      lines.push(
        `| ${at} | list first page, ms | ${fmt(r.start.list.ms)} | ${fmt(c.list.ms)} | **${rel(r.start.list.ms, c.list.ms)}** (start ÷ end) |`,
      );
      lines.push(
        `| ${at} | node:http single posts/s | ${fmt(r.refStart.baseline)} | ${fmt(c.ref.baseline)} | ${rel(c.ref.baseline, r.refStart.baseline)} |`,
      );
    }
    const row = (what, s, e) => lines.push(`| ${name} | ${what} | ${fmt(s)} | ${fmt(e)} | **${rel(e, s)}** |`);
    row("intake, new alerts/s", r.start.intake.rate, r.end.intake.rate);
    // Item 5's sustained figure: the growth's first step and its last (each thousands of alerts, not a 1,000-job sample).
    const [first, last] = [r.grow[0], r.grow.at(-1)];
    if (first && last && r.grow.length > 1) {
      lines.push(
        `| ${name} | growth, new alerts/s (${fmt(first.from)} → ${fmt(first.size)}; ${fmt(last.from)} → ${fmt(last.size)}) | ${fmt(first.rate)} | ${fmt(last.rate)} | **${rel(last.rate, first.rate)}** |`,
      );
    }
    row("intake ÷ node:http same time", r.start.intake.rate / r.refStart.baseline, r.end.intake.rate / r.refEnd.baseline);
    row("mixed (½ repeats + resolves), jobs/s", r.start.mixed.rate, r.end.mixed.rate);
    row("CPU ms per job (this process), intake", r.start.intake.cpuMsPerJob, r.end.intake.cpuMsPerJob);
    row("CPU ms per job (this process), mixed", r.start.mixed.cpuMsPerJob, r.end.mixed.cpuMsPerJob);
    lines.push(
      `| ${name} | list first page, ms (median) | ${fmt(r.start.list.ms)} | ${fmt(r.end.list.ms)} | **${rel(r.start.list.ms, r.end.list.ms)}** (start ÷ end) |`,
    );
    row("node:http single posts/s", r.refStart.baseline, r.refEnd.baseline);
    if (r.refStart.alertmanager) row("Alertmanager single posts/s", r.refStart.alertmanager, r.refEnd.alertmanager);
    lines.push(`| ${name} | load average (1 min) | ${fmt(r.refStart.load1)} | ${fmt(r.refEnd.load1)} | |`);
    const p = r.polling;
    if (p) {
      const pct = (x) => `${(100 * x).toFixed(0)} %`;
      for (const [policy, ratio] of Object.entries(p.ratios)) {
        const q = p[policy];
        const how = policy.startsWith("backoff") ? "backing off (5 × the last answer)" : "polling at a fixed 3 s";
        const bound = policy.endsWith("-unbounded") ? "no deadline" : `deadline ${opt["console-deadline-ms"]} ms`;
        lines.push(
          `| ${name} | repeats at the end beside an open alerts page ${how}, ${bound}, ÷ alone | | ${fmt(q.rate)} jobs/s (in flight ${pct(q.inFlight)}; ${q.failed} of ${q.polls} polls failed) | **${fmt(ratio)}** |`,
        );
      }
      lines.push(`| ${name} | repeats alone, before and after | | ${fmt(p.none.rate)} / ${fmt(p.none2.rate)} jobs/s | |`);
    }
  }
  return lines.join("\n");
}
