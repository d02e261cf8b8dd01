export * from "./ports.js";
export * from "./backends.js";
