export * from "./backends.js";
export * from "./ports.js";
