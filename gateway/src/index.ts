export { createApp } from "./app.js";
export { type GatewayConfig, loadConfig } from "./config.js";
export type { GatewayDeps } from "./deps.js";
export { toHttpError } from "./http-errors.js";
export { createGateway, type RunningGateway } from "./service.js";
