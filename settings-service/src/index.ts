export { loadConfig } from "./config.js";
export type { Directory, EmailInfo, GroupInfo, MemberInfo, Plan, ProjectInfo } from "./domain/ports.js";
export { createSettingsService } from "./service.js";
