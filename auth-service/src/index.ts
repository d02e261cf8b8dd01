export { type AuthConfig, loadConfig } from "./config.js";
export { createAuthService, SERVICE_NAME } from "./service.js";
