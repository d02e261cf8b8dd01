// Alert intake benchmark helper: the summary table of one configuration's figures.

/** Prints the summary of `r` (one queue configuration); `CFG` is the run's configuration. */
export function table(r, CFG) {
  const ms = (v) => (typeof v === "number" ? `${v.toFixed(v < 10 ? 1 : 0)} ms` : String(v));
  const ok = (b) => (b === undefined ? "" : b ? "met" : "MISSED");
  const f = r.fixed;
  const fs = r.fixedSustainable;
  const rows = [
    ["baseline node:http", `${r.baseline?.rps} req/s`, `p99 ${ms(r.baseline?.p99)}`, "", ""],
    ["baseline @ offered rate", `${r.baseline?.atRate?.rps}/${CFG.rate} req/s`, `p99 ${ms(r.baseline?.atRate?.p99)}`, "", ""],
    [
      "accept, max throughput",
      `${r.accept?.rps} req/s`,
      `p99 ${ms(r.accept?.p99)}`,
      "≥ 25% of baseline",
      `${(100 * (r.accept?.ratio ?? 0)).toFixed(1)}% ${ok(r.accept?.ratio >= 0.25)}`,
    ],
    ["processing at saturation", `${r.accept?.processedRps}/s stored`, `drain ${ms(r.accept?.drainMs)}`, "", ""],
    ["accept p99 @ offered rate", `${f?.accepted}/${f?.offered} req/s`, `p99 ${ms(f?.p99)}`, "< 25 ms", ok(f && f.p99 < 25)],
    [
      "queue drain after load",
      ms(f?.drainMs),
      `pending max ${f?.pendingMax}`,
      "≤ 5 s",
      ok(f && f.drainMs !== null && f.drainMs <= 5000),
    ],
    [
      "stored vs accepted @ rate",
      `${f?.processedRpsDuringLoad}/s during load`,
      `${f?.storedRps}/s incl. drain`,
      "≥ accept rate",
      ok(f && f.processedRpsDuringLoad >= 0.95 * f.accepted),
    ],
    [
      "accept → visible @ rate",
      `p50 ${ms(f?.visible?.p50)}`,
      `p99 ${ms(f?.visible?.p99)}`,
      "p99 < 1 s",
      ok(f && f.visible.p99 < 1000),
    ],
  ];
  if (fs) {
    rows.push(
      ["accept p99 @ sustainable", `${fs.accepted}/${fs.offered} req/s`, `p99 ${ms(fs.p99)}`, "(info)", ""],
      ["drain @ sustainable", ms(fs.drainMs), `pending max ${fs.pendingMax}`, "(info)", ""],
      ["accept → visible @ sustainable", `p50 ${ms(fs.visible?.p50)}`, `p99 ${ms(fs.visible?.p99)}`, "(info)", ""],
    );
  }
  rows.push(
    [
      "alerts list (loaded project)",
      `${r.list?.alerts} alerts: ${ms(r.list?.plainMs)}`,
      `search: ${ms(r.list?.searchMs)}`,
      "(info)",
      "",
    ],
    [
      "mapping: req/s (medians)",
      r.mapping ? `${(100 * r.mapping.rpsCost).toFixed(0)}% fewer` : "n/a",
      `${r.mapping?.plain.rps} → ${r.mapping?.mapped.rps} req/s`,
      "< 20%",
      ok(r.mapping ? r.mapping.rpsCost < 0.2 : undefined),
    ],
    [
      "mapping: CPU per alert",
      r.mapping ? `${(100 * r.mapping.cpuCost).toFixed(0)}% more` : "n/a",
      `${r.mapping?.plain.cpuMsPerAlert} → ${r.mapping?.mapped.cpuMsPerAlert} ms`,
      "< 20%",
      ok(r.mapping ? r.mapping.cpuCost < 0.2 : undefined),
    ],
    [
      "Alertmanager 100-alert batch",
      r.prometheus?.skipped ?? `p50 ${ms(r.prometheus?.p50)}`,
      `p99 ${ms(r.prometheus?.p99)}`,
      "< 50 ms",
      ok(r.prometheus?.p99 === undefined ? undefined : r.prometheus.p99 < 50),
    ],
    [
      `RSS gateway (soak ${r.soak?.seconds ?? 0} s)`,
      `${r.soak?.gateway?.start} → ${r.soak?.gateway?.end} MiB`,
      `max ${r.soak?.gateway?.max}`,
      "no growth",
      "",
    ],
    [
      `RSS alert-service (soak)`,
      `${r.soak?.alert?.start} → ${r.soak?.alert?.end} MiB`,
      `max ${r.soak?.alert?.max}`,
      "no growth",
      "",
    ],
    [
      "N posts, one fingerprint",
      `${r.correctness?.alerts} alert, events ${r.correctness?.events}`,
      `of ${r.correctness?.posts}`,
      "1 alert, events N",
      ok(r.correctness?.ok),
    ],
  );
  console.log(`\n## Alert intake, queue ${r.queue}${r.error ? ` (FAILED: ${r.error})` : ""}`);
  if (!r.baseline) return;
  console.table(rows.map(([what, a, b, target, verdict]) => ({ what, a, b, target, verdict })));
}
