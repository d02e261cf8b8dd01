import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { api } from "./api.js";
import { bootAlert, bootAuth, bootGateway, bootSettings } from "./harness.js";

/**
 * The whole system in-process for the alert e-mail tests: like tests/harness.ts, plus
 * alert-service's metrics port (METRICS_PORT=0) and its data directory (the outbox).
 */
export interface MailSystem {
  url: string;
  adminToken: string;
  alertDataDir: string;
  metricsUrl: string;
  /** The value of a metric line (`name` or `name{labels}`), 0 when absent. */
  metric(name: string): Promise<number>;
  stop(): Promise<void>;
}

let counter = 0;

export async function startMailSystem(env: Record<string, string>): Promise<MailSystem> {
  const dataDir = mkdtempSync(join(tmpdir(), "tocsin-mail-system-"));
  const adminToken = "admin-token-for-mail-tests-0123456789";
  const db = (s: string) => `tocsin_mail_${s}_${process.pid}_${Date.now().toString(36)}_${++counter}`;
  const base = { LOG_LEVEL: "silent", ADMIN_TOKEN: adminToken, SECRET_KEY: "test-secret-key-0123456789abcdef", ...env };
  const auth = await bootAuth(
    { ...base, AUTH_SERVICE_ADDR: "127.0.0.1:0", DATA_DIR: join(dataDir, "auth"), MONGO_DB: db("auth") },
    {},
  );
  const withAuth = { ...base, AUTH_SERVICE_ADDR: auth.address };
  const settings = await bootSettings(
    { ...withAuth, SETTINGS_SERVICE_ADDR: "127.0.0.1:0", DATA_DIR: join(dataDir, "settings"), MONGO_DB: db("settings") },
    {},
  );
  const alertDataDir = join(dataDir, "alert");
  const alert = await bootAlert(
    {
      ...withAuth,
      ALERT_SERVICE_ADDR: "127.0.0.1:0",
      SETTINGS_SERVICE_ADDR: settings.address,
      DATA_DIR: alertDataDir,
      MONGO_DB: db("alert"),
      METRICS_PORT: "0",
    },
    {},
  );
  const gateway = await bootGateway(
    { ...withAuth, PORT: "0", ALERT_SERVICE_ADDR: alert.address, SETTINGS_SERVICE_ADDR: settings.address },
    {},
  );
  const metricsUrl = `http://127.0.0.1:${alert.metricsPort}/metrics`;
  return {
    url: gateway.url,
    adminToken,
    alertDataDir,
    metricsUrl,
    async metric(name) {
      const text = (await api(metricsUrl).get("")).text;
      const line = text.split("\n").find((l) => l.startsWith(`${name} `));
      return line ? Number(line.slice(name.length + 1)) : 0;
    },
    async stop() {
      await gateway.stop();
      await alert.stop();
      await settings.stop();
      await auth.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
