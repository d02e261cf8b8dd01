export * from "./config.js";
export * from "./tracing.js";
