import { describe, expect, it } from "vitest";
import { signAckToken, verifyAckToken } from "./ack-token.js";
import { dueAt, type Escalation, escalationView, type PageStep, type PolicySnapshot, stopsRule } from "./model.js";

const t0 = new Date("2026-11-21T09:00:00.000Z");
const at = (s: number) => new Date(t0.getTime() + s * 1000);
const policy: PolicySnapshot = {
  id: 1,
  name: "Primary",
  rules: [
    { status: "acknowledged", elapsedSeconds: 0, schedule: { iid: 1, name: "Ops" } },
    { status: "resolved", elapsedSeconds: 300, user: { id: 2, username: "bob" } },
  ],
  repeatEverySeconds: 600,
  maxRepeats: 1,
};
const escalation: Escalation = { alertId: 9, triggerOp: "op", triggeredAt: t0, policy };
const step = (rule: number, round: number, users = ["ann"]): PageStep => ({
  key: `page:9:op:${rule}:${round}`,
  alertId: 9,
  triggerOp: "op",
  rule,
  round,
  users: users.map((username, id) => ({ id, username })),
  stopped: false,
  at: dueAt(escalation, policy, rule, round),
});

describe("paging rules", () => {
  it("a rule is due at trigger + round × repeat + its elapsed time", () => {
    expect(dueAt(escalation, policy, 0, 0)).toEqual(at(0));
    expect(dueAt(escalation, policy, 1, 0)).toEqual(at(300));
    expect(dueAt(escalation, policy, 1, 1)).toEqual(at(900));
    expect(dueAt(escalation, policy, 1, 1, 20)).toEqual(new Date(t0.getTime() + 900 * 20));
  });

  it("resolved and ignored stop every rule; acknowledged only the rules whose status is acknowledged", () => {
    expect(stopsRule("triggered", { status: "acknowledged" })).toBe(false);
    expect(stopsRule("acknowledged", { status: "acknowledged" })).toBe(true);
    expect(stopsRule("acknowledged", { status: "resolved" })).toBe(false);
    expect(stopsRule("resolved", { status: "resolved" })).toBe(true);
    expect(stopsRule("ignored", { status: "resolved" })).toBe(true);
  });

  it("the view: pages of the current trigger, the next rule due that the status does not stop", () => {
    expect(escalationView(escalation, [], "triggered")).toEqual({ policy: "Primary", nextPageAt: at(0), pages: [] });
    const steps = [step(0, 0), step(1, 0, ["bob"]), { ...step(0, 0), key: "old", triggerOp: "older" }];
    expect(escalationView(escalation, steps, "triggered")).toEqual({
      policy: "Primary",
      nextPageAt: at(600),
      pages: [
        { users: ["ann"], rule: 0, round: 0, at: at(0) },
        { users: ["bob"], rule: 1, round: 0, at: at(300) },
      ],
    });
    // Acknowledged: rule 0 stops, rule 1 (status resolved) would page in round 1, but later rounds need a triggered alert.
    expect(escalationView(escalation, steps, "acknowledged")?.nextPageAt).toBeNull();
    expect(escalationView(escalation, [step(0, 0)], "acknowledged")?.nextPageAt).toEqual(at(300));
    const all = [step(0, 0), step(1, 0), step(0, 1), step(1, 1), { ...step(1, 1), key: "s", stopped: true }];
    expect(escalationView(escalation, all.slice(0, 4), "triggered")?.nextPageAt).toBeNull();
    expect(escalationView(escalation, all, "triggered")?.pages).toHaveLength(4);
    expect(escalationView({ ...escalation, policy: null }, [], "triggered")).toBeNull();
  });
});

describe("acknowledge tokens", () => {
  const secret = "s".repeat(32);
  const claims = { alertId: 9, userId: 2, expiresAt: new Date(Math.floor(at(86_400).getTime() / 1000) * 1000) };

  it("verifies what it signed until it expires", () => {
    const token = signAckToken(secret, claims);
    expect(verifyAckToken(secret, token, at(0))).toEqual({ ok: true, claims });
    expect(verifyAckToken(secret, token, at(86_400))).toEqual({ ok: false, reason: "expired" });
  });

  it("refuses a token changed anywhere, or signed with another secret, as invalid", () => {
    const token = signAckToken(secret, claims);
    const [payload, mac] = token.split(".") as [string, string];
    const other = Buffer.from(JSON.stringify({ a: 10, u: 2, e: 9_999_999_999 })).toString("base64url");
    expect(verifyAckToken(secret, `${other}.${mac}`, at(0))).toEqual({ ok: false, reason: "invalid" });
    expect(verifyAckToken(secret, `${payload}.${mac.slice(1)}x`, at(0))).toEqual({ ok: false, reason: "invalid" });
    expect(verifyAckToken("t".repeat(32), token, at(0))).toEqual({ ok: false, reason: "invalid" });
    expect(verifyAckToken(secret, "garbage", at(0))).toEqual({ ok: false, reason: "invalid" });
    expect(verifyAckToken(secret, `${token}.x`, at(0))).toEqual({ ok: false, reason: "invalid" });
  });
});
