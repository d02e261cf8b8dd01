import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { until } from "@tocsin/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { describeAuthStoreContract } from "./contract.js";
import { MongoAuthStore } from "./mongo-auth-store.js";
import { SqliteAuthStore } from "./sqlite-auth-store.js";

describeAuthStoreContract("SQLite (:memory:)", async () => {
  const store = new SqliteAuthStore(":memory:");
  return { store, cleanup: () => store.close() };
});

const mongoUrl = inject("mongoUrl");
if (!mongoUrl)
  console.warn("auth-service MongoDB store contract SKIPPED: no MongoDB-protocol server (run scripts/install-ferretdb.sh)");

describe.skipIf(!mongoUrl)("MongoDB", () => {
  describeAuthStoreContract("MongoDB (FerretDB)", async () => {
    const store = await MongoAuthStore.connect(mongoUrl, `tocsin_test_auth_${randomBytes(6).toString("hex")}`);
    return {
      store,
      async cleanup() {
        await store.drop();
        await store.close();
      },
    };
  });
});

/**
 * A second process (its own MongoSequences lock, as another replica has) creating users in the
 * same database while this one does: ids must stay distinct although FerretDB's `$inc` is not
 * atomic across processes. Imports the built store (npm test builds first).
 */
function otherReplica(url: string, db: string, count: number) {
  const storeModule = new URL("../../dist/store/mongo-auth-store.js", import.meta.url).href;
  const script = `
    const { MongoAuthStore } = await import(${JSON.stringify(storeModule)});
    const store = await MongoAuthStore.connect(process.argv[1], process.argv[2]);
    console.log("ready");
    await new Promise((r) => process.stdin.once("data", r));
    const made = await Promise.allSettled(Array.from({ length: ${count} }, (_, i) =>
      store.createUser({ username: "other-" + i, email: "other-" + i + "@example.com", name: "Other", isAdmin: false, createdAt: new Date() })));
    const failed = made.filter((m) => m.status === "rejected").map((m) => String(m.reason));
    console.log(JSON.stringify({ failed }));
    await store.close();
    process.exit(0);`;
  const child = spawn(process.execPath, ["--input-type=module", "-e", script, url, db], { stdio: ["pipe", "pipe", "pipe"] });
  let out = "";
  child.stderr.on("data", (chunk) => {
    out += chunk;
  });
  child.stdout.on("data", (chunk) => {
    out += chunk;
  });
  const ready = until(() => out.startsWith("ready"), 20_000).catch((err) => {
    throw new Error(`other replica not ready: ${out} ${err}`);
  });
  const done = new Promise<{ failed: string[] }>((resolve, reject) =>
    child.on("exit", (code) =>
      code === 0 ? resolve(JSON.parse(out.split("\n")[1] ?? "{}")) : reject(new Error(`exit ${code}`)),
    ),
  );
  return { ready, go: () => child.stdin.write("go\n"), done };
}

describe.skipIf(!mongoUrl)("MongoDB, two replicas on one database", () => {
  const db = `tocsin_test_auth_pair_${randomBytes(6).toString("hex")}`;
  let store: MongoAuthStore;
  beforeAll(async () => {
    store = await MongoAuthStore.connect(mongoUrl as string, db);
  });
  afterAll(async () => {
    await store?.drop();
    await store?.close();
  });

  it("users created by two processes at once all get distinct ids (FerretDB's $inc alone hands out duplicates)", async () => {
    const other = otherReplica(mongoUrl as string, db, 40);
    await other.ready;
    other.go();
    const mine = await Promise.allSettled(
      Array.from({ length: 40 }, (_, i) =>
        store.createUser({
          username: `mine-${i}`,
          email: `mine-${i}@example.com`,
          name: "Mine",
          isAdmin: false,
          createdAt: new Date(),
        }),
      ),
    );
    const theirs = await other.done;
    expect(mine.filter((m) => m.status === "rejected").map((m) => String((m as PromiseRejectedResult).reason))).toEqual([]);
    expect(theirs.failed).toEqual([]);
    const users = await Promise.all(
      Array.from({ length: 40 }, async (_, i) => [
        await store.findUserByUsername(`mine-${i}`),
        await store.findUserByUsername(`other-${i}`),
      ]),
    );
    const ids = users.flat().map((u) => u?.id);
    expect(new Set(ids).size).toBe(80);
  });
});
