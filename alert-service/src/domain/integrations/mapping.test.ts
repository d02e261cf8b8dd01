import { describe, expect, it } from "vitest";
import { MAPPABLE_FIELDS, parseMapping } from "./mapping.js";

const parse = (value: unknown) => parseMapping(JSON.stringify(value));

describe("parseMapping", () => {
  it("takes the stored form and GitLab's array form (case-insensitive names and types)", () => {
    expect(parse({ title: { path: ["a", 0], type: "string", label: "a[0]" } })).toEqual({
      title: { path: ["a", 0], type: "string", label: "a[0]" },
    });
    expect(parse([{ fieldName: "HOSTS", path: ["h"], type: "ARRAY" }])).toEqual({ hosts: { path: ["h"], type: "array" } });
    expect(parse({ gitlab_environment_name: { path: ["e"], type: "string" } })).toEqual({
      platform_environment_name: { path: ["e"], type: "string" },
    });
  });
  it("an empty mapping is none", () => {
    expect(parse({})).toBeNull();
    expect(parse([])).toBeNull();
    expect(parse(null)).toBeNull();
  });
  it("enforces each field's types (reference 6.1)", () => {
    const types = ["string", "datetime", "array"];
    for (const [field, allowed] of Object.entries(MAPPABLE_FIELDS)) {
      for (const type of types) {
        const run = () => parse({ [field]: { path: ["x"], type } });
        if (allowed.includes(type)) expect(run, `${field} ${type}`).not.toThrow();
        else expect(run, `${field} ${type}`).toThrowError(new RegExp(`allowed for ${field}: ${allowed.join(", ")}`));
      }
    }
  });
  it("names the problem", () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ x: { path: ["a"], type: "string" } }, /unknown alert field 'x'/],
      [{ title: { path: ["a"], type: "string", extra: 1 } }, /unknown properties: extra/],
      [{ title: { path: "a", type: "string" } }, /needs a path/],
      [{ title: { path: Array.from({ length: 101 }, () => "a"), type: "string" } }, /at most 100/],
      [[{ path: ["a"], type: "string" }], /item 0 must be an object with field_name/],
      [[1], /item 0/],
      ["text", /must be an object of alert field/],
    ];
    for (const [value, message] of cases) expect(() => parse(value)).toThrowError(message);
    expect(() => parseMapping("{")).toThrowError(/must be valid JSON/);
  });
});
