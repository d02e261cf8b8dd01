export * from "./backends.js";
export * from "./ports.js";
export * from "./until.js";
