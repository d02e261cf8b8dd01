import { describe, expect, it } from "vitest";
import { sortedAsMongo } from "./mongo-ferretdb-list.js";

/**
 * The order a FerretDB list sorts in here must be MongoDB's for the same sort (the store contract
 * checks whole lists on both; this checks the corners: nulls, ties, dates, inverted severity).
 */
describe("sortedAsMongo", () => {
  const t = (minute: number) => new Date(Date.UTC(2026, 11, 3, 10, minute));
  const docs = [
    { id: 1, ended_at: t(5), events: 3, severity: 2 },
    { id: 2, ended_at: null, events: 1, severity: 0 },
    { id: 3, ended_at: t(1), events: 3, severity: 2 },
    { id: 4, ended_at: null, events: 7, severity: 5 },
  ];
  const ids = (sorted: Array<{ id: number }>) => sorted.map((d) => d.id);

  it("null before any date ascending, after every date descending, ties by id in the same direction", () => {
    expect(
      ids(
        sortedAsMongo(docs, [
          ["ended_at", 1],
          ["id", 1],
        ]),
      ),
    ).toEqual([2, 4, 3, 1]);
    expect(
      ids(
        sortedAsMongo(docs, [
          ["ended_at", -1],
          ["id", -1],
        ]),
      ),
    ).toEqual([1, 3, 4, 2]);
  });

  it("numbers by value, then the id", () => {
    expect(
      ids(
        sortedAsMongo(docs, [
          ["events", -1],
          ["id", -1],
        ]),
      ),
    ).toEqual([4, 3, 1, 2]);
    expect(
      ids(
        sortedAsMongo(docs, [
          ["severity", 1],
          ["id", -1],
        ]),
      ),
    ).toEqual([2, 3, 1, 4]);
  });

  it("leaves its input as it was", () => {
    const before = ids(docs);
    sortedAsMongo(docs, [["id", -1]]);
    expect(ids(docs)).toEqual(before);
  });
});
