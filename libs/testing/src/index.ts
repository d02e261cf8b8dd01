export * from "./backends.js";
export * from "./capture-logger.js";
export * from "./fake-clock.js";
export * from "./prng.js";
export * from "./rejection.js";
export * from "./stub-services.js";
export * from "./tcp-ports.js";
export * from "./until.js";
