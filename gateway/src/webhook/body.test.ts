import { describe, expect, it } from "vitest";
import { parseJsonObject } from "./body.js";

// parseJsonObject checks UTF-8 with buffer.isUtf8 and decodes with Buffer#toString: the same
// answers as the fatal UTF-8 TextDecoder it replaced, byte order mark included.
describe("webhook body decoding", () => {
  const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });
  const viaDecoder = (bytes: Buffer) => {
    try {
      return decoder.decode(bytes);
    } catch {
      return "invalid";
    }
  };
  const viaParse = (bytes: Buffer) => {
    const r = parseJsonObject(bytes);
    return r.ok ? r.text : /UTF-8/.test(r.message) ? "invalid" : r.message;
  };

  it("decodes what a fatal TextDecoder decodes, and refuses what it refuses", () => {
    const cases = [
      Buffer.from('{"title":"Ünïcödé 東京 🚨"}'),
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"title":"bom"}')]),
      Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d]), // bad continuation
      Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x7d]), // encoded surrogate
      Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xf0, 0x9f, 0x9a, 0x22, 0x7d]), // truncated sequence
      Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc0, 0xaf, 0x22, 0x7d]), // overlong
    ];
    for (const bytes of cases) expect(viaParse(bytes), bytes.toString("hex")).toBe(viaDecoder(bytes));
    expect(viaParse(cases[1] as Buffer)).toBe('{"title":"bom"}');
  });
});
