// bench/growth.mjs helper: the same-run references beside each sample — a bare `node:http` server
// (bench/baseline.mjs, own process) and, unless --no-alertmanager, Prometheus Alertmanager
// (bench/storm/alertmanager.mjs) — as single posts per second from 20 loops.
import { loadavg } from "node:os";

/** Single posts per second from 20 loops for `seconds` (`--ref-seconds`). */
async function postRate(url, bodyOf, seconds) {
  const end = performance.now() + seconds * 1000;
  let n = 0;
  let i = 0;
  const loop = async () => {
    while (performance.now() < end) {
      // A refused or reset connection (a busy machine) is a failed post, not the end of the run.
      const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: bodyOf(i++) }).catch(
        () => undefined,
      );
      await res?.arrayBuffer();
      if (res && res.status < 300) n++;
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: 20 }, loop));
  return n / ((performance.now() - t0) / 1000);
}

/** `{ baseline, alertmanager, load1 }`: the posts/s of `refs.baseline` and `refs.am` (when started), and the load average. */
export async function references(refs, seconds) {
  const baseline = await postRate(
    `${refs.baseline.url}/alerts`,
    (i) => JSON.stringify({ title: `ref ${i}`, severity: "high" }),
    seconds,
  );
  const am = refs.am
    ? await postRate(
        `${refs.am.url}/api/v2/alerts`,
        (i) => JSON.stringify([{ labels: { alertname: `Ref${i}`, severity: "high" }, annotations: { summary: "ref" } }]),
        seconds,
      )
    : undefined;
  return { baseline, alertmanager: am, load1: loadavg()[0] };
}
