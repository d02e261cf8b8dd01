import { AppError } from "@tocsin/core";
import { describe, expect, it } from "vitest";
import {
  optionalBoolean,
  optionalDate,
  optionalEnum,
  optionalInt,
  optionalString,
  optionalStringArray,
  parseBoolean,
  requiredInt,
  requiredString,
} from "./params.js";

const failure = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return err instanceof AppError ? { reason: err.reason, message: err.message } : err;
  }
  return undefined;
};

describe("request parameters", () => {
  it("coerces booleans the Grape way", () => {
    for (const v of [true, 1, "true", "1", "YES", "on", "t"]) expect(parseBoolean("b", v)).toBe(true);
    for (const v of [false, 0, "false", "0", "no", "off", "F"]) expect(parseBoolean("b", v)).toBe(false);
    expect(failure(() => parseBoolean("new_note", "maybe"))).toEqual({ reason: "PARAM_INVALID", message: "new_note is invalid" });
    expect(failure(() => parseBoolean("b", 2))).toMatchObject({ reason: "PARAM_INVALID" });
    expect(optionalBoolean({}, "b")).toBeUndefined();
  });

  it("reads strings, rejecting objects and treating null as absent", () => {
    expect(optionalString({ a: "x" }, "a")).toBe("x");
    expect(optionalString({ a: 5 }, "a")).toBe("5");
    expect(optionalString({ a: null }, "a")).toBeUndefined();
    expect(failure(() => optionalString({ a: ["x"] }, "a"))).toEqual({ reason: "PARAM_INVALID", message: "a is invalid" });
  });

  it("requires strings", () => {
    expect(requiredString({ username: "bob" }, "username")).toBe("bob");
    expect(failure(() => requiredString({}, "username"))).toEqual({ reason: "PARAM_MISSING", message: "username is missing" });
    expect(failure(() => requiredString({ username: "  " }, "username"))).toMatchObject({ reason: "PARAM_MISSING" });
  });

  it("reads integers", () => {
    expect(optionalInt({ id: "42" }, "id")).toBe(42);
    expect(optionalInt({ id: 42 }, "id")).toBe(42);
    expect(optionalInt({ id: null }, "id")).toBeUndefined();
    expect(failure(() => optionalInt({ id: "4x" }, "id"))).toEqual({ reason: "PARAM_INVALID", message: "id is invalid" });
    expect(failure(() => optionalInt({ id: 1.5 }, "id"))).toMatchObject({ reason: "PARAM_INVALID" });
    expect(failure(() => requiredInt({}, "user_id"))).toEqual({ reason: "PARAM_MISSING", message: "user_id is missing" });
    expect(failure(() => requiredInt({ user_id: "abc" }, "user_id"))).toEqual({
      reason: "PARAM_INVALID",
      message: "user_id is invalid",
    });
  });

  it("reads string lists in every form clients send", () => {
    expect(optionalStringArray({ scopes: ["api", "read_api"] }, "scopes")).toEqual(["api", "read_api"]);
    expect(optionalStringArray({ "scopes[]": "api" }, "scopes")).toEqual(["api"]);
    expect(optionalStringArray({ scopes: "api, read_api" }, "scopes")).toEqual(["api", "read_api"]);
    expect(optionalStringArray({}, "scopes")).toBeUndefined();
    expect(failure(() => optionalStringArray({ scopes: [1] }, "scopes"))).toMatchObject({ reason: "PARAM_INVALID" });
  });

  it("checks enumerations", () => {
    expect(optionalEnum({ plan: "premium" }, "plan", ["free", "premium"])).toBe("premium");
    expect(failure(() => optionalEnum({ plan: "gold" }, "plan", ["free", "premium"]))).toEqual({
      reason: "PARAM_VALUE_INVALID",
      message: "plan does not have a valid value",
    });
  });

  it("checks calendar dates", () => {
    expect(optionalDate({ d: "2030-02-28" }, "d")).toBe("2030-02-28");
    expect(optionalDate({ d: "" }, "d")).toBeUndefined();
    expect(failure(() => optionalDate({ d: "2030-02-30" }, "d"))).toEqual({ reason: "PARAM_INVALID", message: "d is invalid" });
    expect(failure(() => optionalDate({ d: "tomorrow" }, "d"))).toMatchObject({ reason: "PARAM_INVALID" });
  });
});
