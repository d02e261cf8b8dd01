export { loadConfig } from "./config.js";
export { createAlertService } from "./service.js";
