import { describe, expect, it } from "vitest";
import { isDuplicateKey, isUniqueViolation } from "./duplicates.js";
import { mongoDbName } from "./mongo-db-name.js";
import { openSqlite } from "./sqlite.js";
import { storePrefix } from "./store-prefix.js";

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

describe("isUniqueViolation", () => {
  it("tells better-sqlite3's unique rules apart by the columns they name", () => {
    const db = openSqlite(":memory:");
    db.exec("CREATE TABLE t (k TEXT PRIMARY KEY, u TEXT UNIQUE)");
    db.prepare("INSERT INTO t VALUES ('a', 'x')").run();
    const failure = (sql: string) => {
      try {
        db.prepare(sql).run();
      } catch (err) {
        return err;
      }
      return undefined;
    };
    const onU = failure("INSERT INTO t VALUES ('b', 'x')");
    expect(isUniqueViolation(onU)).toBe(true);
    expect(isUniqueViolation(onU, "t.u")).toBe(true);
    expect(isUniqueViolation(onU, "t.k")).toBe(false);
    expect(isUniqueViolation(failure("INSERT INTO t VALUES ('a', 'y')"), "t.k")).toBe(true);
    expect(isUniqueViolation(new Error("disk I/O error"))).toBe(false);
    db.close();
  });
});

describe("storePrefix", () => {
  it("names the MongoDB database, else the resolved DATA_DIR by hash", () => {
    expect(storePrefix({ mongoDb: "tocsin_alert", dataDir: "/data" })).toBe("tocsin:tocsin_alert");
    const sqlite = storePrefix({ mongoDb: undefined, dataDir: "/data/x" });
    expect(sqlite).toMatch(/^tocsin:sqlite-[0-9a-f]{12}$/);
    expect(storePrefix({ mongoDb: undefined, dataDir: "/data/x/../x" })).toBe(sqlite);
    expect(storePrefix({ mongoDb: undefined, dataDir: "/data/y" })).not.toBe(sqlite);
  });
});
