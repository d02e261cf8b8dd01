import type { AlertOutcome } from "../../domain/alerts/model.js";

// The JSON texts the SQLite stores write for every processed alert, with their keys spelled out
// rather than serialized object by object: the same text `JSON.stringify` writes (json-text.test.ts),
// ≈ 4 % fewer instructions per new alert with the times read by position
// (bench/processing-instructions.mjs).

/** `JSON.stringify(outcome)` of an AlertOutcome built by processing (`toOutcome`: the same keys in the same order). */
export function outcomeJson(o: AlertOutcome): string {
  // status and action are names without a character to escape.
  return `{"iid":${o.iid},"title":${JSON.stringify(o.title)},"status":"${o.status}","events":${o.events},"action":"${o.action}"}`;
}

/** `JSON.stringify(notes.map(({ key, note }) => ({ key, note })))`: a new alert's notes (one or two). */
export function notesJson(notes: ReadonlyArray<{ key: string; note: string }>): string {
  return `[${notes.map((n) => `{"key":${JSON.stringify(n.key)},"note":${JSON.stringify(n.note)}}`).join(",")}]`;
}
