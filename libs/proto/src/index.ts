import { fileURLToPath } from "node:url";
import { loadSync, type PackageDefinition } from "@grpc/proto-loader";

export * as alertV1 from "./gen/alert/v1/alert.js";
export * as channelsV1 from "./gen/alert/v1/channels.js";
export * as alertSilencesV1 from "./gen/alert/v1/silences.js";
export * as authV1 from "./gen/auth/v1/auth.js";
export * as oncallV1 from "./gen/settings/v1/oncall.js";
export * as settingsV1 from "./gen/settings/v1/settings.js";
export { MAX_NOTIFICATION_EMAIL_USERS } from "./limits.js";
export { PLAN_NAMES, planFromName, planName, planNameOrNull } from "./plans.js";

/** The `proto/` folder at the repository root (the same from `src/` and `dist/`). */
const PROTO_ROOT = fileURLToPath(new URL("../../../proto", import.meta.url));

export const PROTO_FILES = {
  auth: "auth/v1/auth.proto",
  alert: "alert/v1/alert.proto",
  channels: "alert/v1/channels.proto",
  silences: "alert/v1/silences.proto",
  settings: "settings/v1/settings.proto",
  oncall: "settings/v1/oncall.proto",
} as const;

/** A proto-loader package definition of the given files, for gRPC reflection. */
export function loadPackageDefinition(files: string[]): PackageDefinition {
  return loadSync(files, { includeDirs: [PROTO_ROOT], keepCase: true, longs: Number, enums: String, defaults: true });
}
