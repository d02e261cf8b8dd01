import { describe, expect, it } from "vitest";
import type { AlertOutcome } from "../../domain/alerts/model.js";
import { notesJson, outcomeJson } from "./json-text.js";

const tricky = [
  "plain",
  'quote " and \\ backslash',
  "new\nline\ttab\u0001",
  "ünïcødé ✓ 🚨",
  "lone \ud800 surrogate",
  "</script>",
  "",
];

describe("the stores' JSON texts", () => {
  it("writes an outcome as JSON.stringify does", () => {
    for (const title of tricky)
      for (const status of ["triggered", "acknowledged", "resolved", "ignored"] as const)
        for (const action of ["created", "incremented", "resolved", "created_resolved"] as const) {
          const o: AlertOutcome = { iid: 12345, title, status, events: 7, action };
          expect(outcomeJson(o)).toBe(JSON.stringify(o));
          expect(JSON.parse(outcomeJson(o))).toEqual(o);
        }
  });

  it("writes notes as JSON.stringify does, extra fields left out", () => {
    for (const note of tricky) {
      const notes = [
        { key: `op-1:${note}`, note },
        { key: "op-1:status", note: "changed the status to **Resolved**", extra: 1 },
      ];
      expect(notesJson(notes)).toBe(JSON.stringify(notes.map(({ key, note }) => ({ key, note }))));
      expect(notesJson(notes.slice(0, 1))).toBe(JSON.stringify([{ key: notes[0]?.key, note }]));
    }
  });
});
