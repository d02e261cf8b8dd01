export { loadConfig } from "./config.js";

export { createGateway } from "./service.js";
