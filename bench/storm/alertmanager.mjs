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

/** Starts Alertmanager; resolves to `{ url, pid, version, stop() }` once `/-/ready` answers 200. */
export async function startAlertmanager() {
  const bin = binary();
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "tocsin-storm-am-"));
  writeFileSync(join(dir, "alertmanager.yml"), CONFIG);
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
