import { internal } from "@tocsin/core";

/** A message field proto3 marks optional but the service always sets; absent → 500, logged. */
export function must<T>(value: T | undefined, what: string): T {
  if (value === undefined || value === null) {
    throw internal(new Error(`answer without ${what}`));
  }
  return value;
}
