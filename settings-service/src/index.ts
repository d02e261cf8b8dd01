export { loadConfig, type SettingsConfig } from "./config.js";
export type { Directory, EmailInfo, GroupInfo, MemberInfo, Plan, ProjectInfo, SettingsStore } from "./domain/ports.js";
export { createSettingsService, SERVICE_NAME } from "./service.js";
