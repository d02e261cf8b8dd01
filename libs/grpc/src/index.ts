export * from "./client.js";
export * from "./health-client.js";
export * from "./metadata.js";
export * from "./server.js";
export * from "./status.js";
export * from "./types.js";
export * from "./watch-stream.js";
export * from "./watched-cache.js";
