// bench/storm.mjs helper: one wrk run (1 thread, a Lua script that makes every alert distinct)
// and its figures. wrk must be on PATH (`apt-get install -y wrk`).
import { execFile } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const SCRIPT = join(dirname(fileURLToPath(import.meta.url)), "wrk-post.lua");
let runs = 0;

/**
 * POSTs `shape` bodies ("flat", "am", "hook"; see wrk-post.lua) of `size` alerts each to `url`
 * with `connections` connections for `seconds` s. Resolves to `{ requests, ok, non2xx, errors,
 * seconds, rps, alertsPerSec, p50, p90, p99, max }` (latency in ms; `non2xx` = answers >= 400 as
 * wrk counts them, `errors` = socket errors and timeouts).
 */
export function wrk({ url, headers = {}, shape, size = 1, connections, seconds }) {
  const tag = `${Date.now().toString(36)}${++runs}`;
  const args = ["-t1", `-c${connections}`, `-d${seconds}s`, "--timeout", "10s", "-s", SCRIPT];
  for (const [k, v] of Object.entries(headers)) args.push("-H", `${k}: ${v}`);
  args.push(url, "--", shape, String(size), tag);
  return new Promise((resolve, reject) => {
    execFile("wrk", args, { maxBuffer: 1 << 20, timeout: (seconds + 60) * 1000 }, (err, stdout, stderr) => {
      const line = stdout.split("\n").find((l) => l.startsWith("STORM "));
      if (err || !line)
        return reject(new Error(`wrk failed: ${err?.message ?? ""} ${stderr.slice(0, 300)} ${stdout.slice(0, 300)}`));
      const r = JSON.parse(line.slice(6));
      const secs = r.us / 1e6;
      const ok = r.requests - r.status;
      const ms = (us) => Math.round(us / 100) / 10;
      resolve({
        requests: r.requests,
        ok,
        non2xx: r.status,
        errors: r.connect + r.read + r.write + r.timeout,
        seconds: secs,
        rps: Math.round(ok / secs),
        alertsPerSec: Math.round((ok * size) / secs),
        alerts: ok * size,
        p50: ms(r.p50),
        p90: ms(r.p90),
        p99: ms(r.p99),
        max: ms(r.max),
      });
    });
  });
}
