export { loadConfig } from "./config.js";
export { createAuthService } from "./service.js";
