export * from "./errors.js";
export * from "./config.js";
export * from "./logger.js";
export * from "./clock.js";
export * from "./crypto.js";
export * from "./shutdown.js";
export * from "./context.js";
export * from "./paging.js";
