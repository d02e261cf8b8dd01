import { describe, expect, it } from "vitest";
import { isDuplicateKey } from "./duplicates.js";
import { mongoDbName } from "./mongo-db-name.js";
import { openSqlite } from "./sqlite.js";

describe("isDuplicateKey", () => {
  it("knows code 11000 and the texts FerretDB and SQLite use for a unique violation", () => {
    expect(isDuplicateKey({ code: 11000, message: "x" })).toBe(true);
    expect(isDuplicateKey({ code: 1, message: "UNIQUE constraint failed: t.c (2067)" })).toBe(true);
    expect(isDuplicateKey(new Error("E11000 duplicate key error collection: a.b"))).toBe(true);
    expect(isDuplicateKey(new Error("connection reset"))).toBe(false);
    expect(isDuplicateKey(undefined)).toBe(false);
    expect(isDuplicateKey("UNIQUE constraint failed")).toBe(false);
  });

  it("recognises better-sqlite3's unique violation", () => {
    const db = openSqlite(":memory:");
    db.exec("CREATE TABLE t (k TEXT UNIQUE)");
    db.prepare("INSERT INTO t VALUES ('a')").run();
    expect(() => db.prepare("INSERT INTO t VALUES ('a')").run()).toThrow();
    try {
      db.prepare("INSERT INTO t VALUES ('a')").run();
    } catch (err) {
      expect(isDuplicateKey(err)).toBe(true);
    }
    db.close();
  });
});

describe("mongoDbName", () => {
  it("prefers the explicit name, then the URL path, then the fallback", () => {
    expect(mongoDbName("mongodb://h:1/fromurl", "explicit", "tocsin_x")).toBe("explicit");
    expect(mongoDbName("mongodb://h:1/from%20url?replicaSet=r", undefined, "tocsin_x")).toBe("from url");
    expect(mongoDbName("mongodb+srv://u:p@h/db", undefined, "tocsin_x")).toBe("db");
    expect(mongoDbName("mongodb://h:1/", undefined, "tocsin_x")).toBe("tocsin_x");
    expect(mongoDbName("mongodb://h:1/?w=1", undefined, "tocsin_x")).toBe("tocsin_x");
    expect(mongoDbName("mongodb://h:1", undefined, "tocsin_x")).toBe("tocsin_x");
    expect(mongoDbName(undefined, undefined, "tocsin_x")).toBe("tocsin_x");
  });
});
