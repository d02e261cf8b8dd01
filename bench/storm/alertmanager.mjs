// bench/storm.mjs helper: Prometheus Alertmanager (the peer), from `.tmp/bin/alertmanager`
// (scripts/install-alertmanager.sh installs the pinned version when it is missing), on a free
// loopback port, its own storage folder, no cluster gossip, and one receiver with no
// integrations: alerts are kept in memory, grouped and "notified" to nobody (no outbound work).
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, launch, ROOT, sleep, stopProc, waitPort } from "../alert-system.mjs";

const CONFIG = `route:
  receiver: discard
receivers:
  - name: discard
`;

function binary() {
  const bin = process.env.ALERTMANAGER_BIN ?? join(ROOT, ".tmp", "bin", "alertmanager");
  if (!existsSync(bin) && !process.env.ALERTMANAGER_BIN) {
    execFileSync(join(ROOT, "scripts", "install-alertmanager.sh"), { stdio: "inherit" });
  }
  return bin;
}

/** The installed version (the install script's stamp file), or "unknown". */
function version(bin) {
  try {
    return readFileSync(`${bin}.version`, "utf8").trim();
  } catch {
    return "unknown";
  }
}

/**
 * Starts Alertmanager; resolves to `{ url, pid, version, stop() }` once `/-/ready` answers 200.
 * `config`: its configuration file's text (default: one receiver with no integrations).
 */
export async function startAlertmanager({ config = CONFIG } = {}) {
  const bin = binary();
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "tocsin-storm-am-"));
  writeFileSync(join(dir, "alertmanager.yml"), config);
  const args = [
    `--config.file=${join(dir, "alertmanager.yml")}`,
    `--storage.path=${join(dir, "data")}`,
    `--web.listen-address=127.0.0.1:${port}`,
    "--cluster.listen-address=",
  ];
  const proc = launch("alertmanager", bin, args, { PATH: process.env.PATH, HOME: process.env.HOME });
  const stop = async () => {
    await stopProc(proc);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitPort(proc, port);
    const url = `http://127.0.0.1:${port}`;
    for (let i = 0; i < 100; i++) {
      const res = await fetch(`${url}/-/ready`).catch(() => null);
      if (res?.ok) return { url, pid: proc.pid, version: version(bin), stop };
      await sleep(100);
    }
    throw new Error("alertmanager is not ready after 10 s");
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Number of alerts Alertmanager holds (GET /api/v2/alerts, active ones). */
export async function alertmanagerCount(url) {
  const res = await fetch(`${url}/api/v2/alerts?silenced=false&inhibited=false`);
  const list = await res.json();
  return Array.isArray(list) ? list.length : 0;
}

/**
 * A configuration that notifies every alert on its own (`group_by: ['...']`) after `groupWaitS`,
 * once (no repeats within the bench), through `receiver` (the YAML of one receiver's integrations,
 * indented under `- name: bench`): the peer's own path from intake to a message, for the benches
 * that measure Tocsin's (channels.mjs, paging.mjs).
 */
export function notifyEachAlertConfig(groupWaitS, receiver) {
  return `route:
  receiver: bench
  group_by: ['...']
  group_wait: ${groupWaitS}s
  group_interval: 1h
  repeat_interval: 24h
receivers:
  - name: bench
${receiver}
`;
}

/**
 * Posts `n` alerts (one per request, as Tocsin's benches post) with `concurrency` posters to
 * Alertmanager's API; `alert(i)` builds the i-th. Resolves to each alert's acceptance time (ms).
 */
export async function postEachAlert(url, n, concurrency, alert) {
  const acceptedAt = new Array(n);
  let next = 0;
  const poster = async () => {
    for (let i = next++; i < n; i = next++) {
      const res = await fetch(`${url}/api/v2/alerts`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify([alert(i)]),
      });
      await res.text();
      if (res.status !== 200) throw new Error(`alertmanager refused alert ${i}: ${res.status}`);
      acceptedAt[i] = Date.now();
    }
  };
  await Promise.all(Array.from({ length: concurrency }, poster));
  return acceptedAt;
}
