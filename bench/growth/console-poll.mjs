// bench/growth.mjs helper: --console-poll. Processing at the end (repeats of open alerts, so that
// the store keeps its size) alone, beside a console's open alerts page polling the store at a
// fixed 3 s, beside the same page backing off (web/src/api/polling.ts), and alone again.
const log = (...a) => console.log(`[${new Date().toISOString().slice(11, 19)}]`, ...a);

/** How the simulated console waits after a poll that took `took` ms (web/src/api/polling.ts's rule for "backoff"). */
const POLL_MS = 3_000;
const pollWait = (policy, took) => (policy.startsWith("backoff") ? Math.max(POLL_MS, 5 * took) : POLL_MS - (took % POLL_MS));

/**
 * An open alerts page of the console (--console-poll), as its two polled queries reach the store:
 * the list (the Open tab's first page, newest first: a list of triggered and one of acknowledged
 * alerts) and the tab counts (four one-item pages), each a few store calls at once, with the
 * gateway's deadline from the poll's start (none for an `-unbounded` policy). Each query polls on
 * its own, never twice at a time. Answers `stop()`, which resolves to the polls made, those that
 * failed (past their deadline), and the page's share of the time with a query in flight.
 */
function pollLikeConsole(stores, policy, opt) {
  let stopped = false;
  let wake = () => {};
  const deadlineMs = policy.endsWith("-unbounded") ? 0 : Number(opt["console-deadline-ms"]);
  const page = (status, limit, deadline) =>
    stores.alerts.list(1, { status, orderBy: "started_at", sort: "desc", offset: 0, limit }, deadline);
  const queries = [
    // The Open tab's first page: one list per status, merged (listOfStatuses).
    (deadline) => Promise.all(["triggered", "acknowledged"].map((status) => page(status, 20, deadline))),
    (deadline) => Promise.all(["triggered", "acknowledged", "resolved", undefined].map((status) => page(status, 1, deadline))),
  ];
  let polls = 0;
  let failed = 0;
  let busyMs = 0;
  const t0 = performance.now();
  const loop = async (query) => {
    while (!stopped) {
      const started = performance.now();
      try {
        await query(deadlineMs > 0 ? Date.now() + deadlineMs : undefined);
      } catch (err) {
        if (err?.code !== "DEADLINE_EXCEEDED") throw err;
        failed++;
      }
      const took = performance.now() - started;
      polls++;
      busyMs += took;
      if (stopped) break;
      await new Promise((resolve) => {
        const timer = setTimeout(resolve, pollWait(policy, took));
        const previous = wake;
        wake = () => {
          clearTimeout(timer);
          previous();
          resolve();
        };
      });
    }
  };
  const loops = Promise.all(queries.map(loop));
  return {
    stop: async () => {
      stopped = true;
      wake();
      await loops;
      return { polls, failed, inFlight: busyMs / queries.length / (performance.now() - t0) };
    },
  };
}

/**
 * Repeats of `batchSize` (--batch) × `concurrency` open alerts for `seconds` (an event each, so that the store
 * keeps its size and every window lists the same alerts), in rounds: jobs/s.
 */
async function repeatsFor(deps, tag, seconds, concurrency, { batchSize, run, newJobs }) {
  const size = batchSize * concurrency;
  await run(deps, newJobs(tag, size), concurrency);
  const end = performance.now() + seconds * 1000;
  const t0 = performance.now();
  let n = 0;
  while (performance.now() < end) {
    // New job ids, the same fingerprints: each job is an event on an open alert.
    await run(deps, newJobs(tag, size), concurrency);
    n += size;
  }
  return n / ((performance.now() - t0) / 1000);
}

/**
 * --console-poll: processing alone, beside a page polling at a fixed 3 s, and beside one backing off, `--console-seconds` each.
 * `work`: `{ batchSize, run, newJobs }` (./samples.mjs, ./jobs.mjs).
 */
export async function consolePolling(deps, stores, concurrency, opt, work) {
  const out = {};
  for (const policy of ["none", ...opt["console-policies"].split(","), "none2"]) {
    const poller = policy.startsWith("none") ? undefined : pollLikeConsole(stores, policy, opt);
    const rate = await repeatsFor(deps, `console-${policy}`, Number(opt["console-seconds"]), concurrency, work);
    out[policy] = { rate, ...(await poller?.stop()) };
    log(`console polling ${policy}: ${rate.toFixed(1)} jobs/s`, JSON.stringify(out[policy]));
  }
  const alone = (out.none.rate + out.none2.rate) / 2;
  out.ratios = {};
  for (const [policy, r] of Object.entries(out)) if (!policy.startsWith("none") && r.rate) out.ratios[policy] = r.rate / alone;
  return out;
}
