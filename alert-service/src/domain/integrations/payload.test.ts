import { jsonDepth } from "@tocsin/core";
import { describe, expect, it } from "vitest";
import { extractPayloadFields, parsePayloadExample } from "./payload.js";

describe("extractPayloadFields (reference 6.4)", () => {
  it("offers strings, datetimes and arrays with their elements, depth first", () => {
    const fields = extractPayloadFields({
      nested: { deep: { key: "v" } },
      arr: [{ key_b: ["x"] }, "s", [["2026-11-20"]]],
      n: 1,
      b: true,
      z: null,
      o: {},
    });
    expect(fields.map((f) => [f.label, f.type])).toEqual([
      ["nested/deep/key", "string"],
      ["arr", "array"],
      ["arr[0]/key_b", "array"],
      ["arr[0]/key_b[0]", "string"],
      ["arr[1]", "string"],
      ["arr[2]", "array"],
      ["arr[2][0]", "array"],
      ["arr[2][0][0]", "datetime"],
    ]);
    expect(fields[7]?.path).toEqual(["arr", 2, 0, 0]);
  });
  it("a string is a datetime when it starts with four digits", () => {
    const types = extractPayloadFields({ a: "2026", b: "123", c: "1999x", d: " 2026" }).map((f) => f.type);
    expect(types).toEqual(["datetime", "string", "datetime", "string"]);
  });
  it("copes with very wide and very deep samples without recursion", () => {
    const deep = JSON.parse(`${"[".repeat(99)}"x"${"]".repeat(99)}`);
    expect(extractPayloadFields({ deep }).at(-1)?.label).toBe(`deep${"[0]".repeat(99)}`);
    expect(extractPayloadFields({ wide: Array.from({ length: 10_000 }, () => "x") })).toHaveLength(10_001);
  });
});

describe("parsePayloadExample", () => {
  it("needs a JSON object of at most 1 MiB and 100 levels", () => {
    expect(parsePayloadExample('{"a":1}')).toEqual({ a: 1 });
    expect(() => parsePayloadExample("[]")).toThrowError("payload_example must be a JSON object, not an array");
    expect(() => parsePayloadExample("3")).toThrowError("payload_example must be a JSON object, not a number");
    expect(() => parsePayloadExample("{")).toThrowError("payload_example must be valid JSON");
    expect(() => parsePayloadExample(`{"a":"${"x".repeat(1024 * 1024)}"}`)).toThrowError(/too big: at most 1 MiB/);
    expect(() => parsePayloadExample(`{"a":${"[".repeat(100)}${"]".repeat(100)}}`)).toThrowError(/nested too deeply/);
    expect(parsePayloadExample(`{"a":${"[".repeat(99)}${"]".repeat(99)}}`)).toBeTruthy();
  });
  it("counts depth outside strings only", () => {
    expect(jsonDepth('{"a":"[[[[\\"{{"}')).toBe(1);
  });
});
