import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AuthStore } from "../domain/ports.js";
import type { NamespaceRecord } from "../domain/types.js";
import { at, reasonOf } from "./contract-fixtures.js";
import { registerIntegrationKeyCases } from "./contract-integration-keys.js";
import { registerSessionCases } from "./contract-sessions.js";

export interface StoreSetup {
  store: AuthStore;
  cleanup: () => Promise<void>;
}

const group = (path: string, parent?: NamespaceRecord): Omit<NamespaceRecord, "id"> => ({
  kind: "group",
  name: path,
  path,
  fullPath: parent ? `${parent.fullPath}/${path}` : path,
  parentId: parent?.id ?? 0,
  ancestorIds: parent ? [...parent.ancestorIds, parent.id] : [],
  plan: "free",
  ownerId: 0,
  createdAt: at,
});

/** The behaviour every AuthStore adapter must have; run against SQLite and MongoDB. */
export function describeAuthStoreContract(name: string, makeStore: () => Promise<StoreSetup>): void {
  describe(`AuthStore contract: ${name}`, () => {
    let store: AuthStore;
    let cleanup: () => Promise<void>;
    beforeEach(async () => {
      ({ store, cleanup } = await makeStore());
    });
    afterEach(async () => {
      await cleanup();
    });

    const user = (username: string, email = `${username}@example.com`) =>
      store.createUser({ username, email, name: username.toUpperCase(), isAdmin: false, createdAt: at });

    it("creates a user with a confirmed primary e-mail and a personal namespace", async () => {
      const u = await user("Alice");
      expect(u).toMatchObject({ username: "Alice", email: "Alice@example.com", isAdmin: false, createdAt: at });
      expect(await store.getUser(u.id)).toEqual(u);
      expect(await store.findUserByUsername("aLICE")).toEqual(u);
      const ns = await store.getNamespace(u.namespaceId);
      expect(ns).toMatchObject({ kind: "user", path: "Alice", fullPath: "Alice", ownerId: u.id, parentId: 0, ancestorIds: [] });
      expect(await store.listEmails(u.id)).toEqual([
        { id: expect.any(Number), userId: u.id, email: "Alice@example.com", confirmedAt: at, primary: true },
      ]);
      expect(await store.getUser(u.id + 1000)).toBeNull();
    });

    it("rejects duplicate usernames and e-mails case-insensitively, leaving nothing behind", async () => {
      const a = await user("alice");
      expect(await reasonOf(user("ALICE", "other@example.com"))).toBe("ALREADY_EXISTS:USERNAME_TAKEN");
      expect(await reasonOf(user("bob", "ALICE@example.com"))).toBe("ALREADY_EXISTS:EMAIL_TAKEN");
      // Neither failure kept its e-mail, user or namespace.
      const bob = await user("bob", "other@example.com");
      expect((await store.getUsers([a.id, bob.id, 9999])).map((u) => u.username)).toEqual(["alice", "bob"]);
      await store.insertNamespace(group("team"));
      expect(await reasonOf(user("Team"))).toBe("ALREADY_EXISTS:USERNAME_TAKEN");
      expect(await store.findUserByUsername("team")).toBeNull();
    });

    it("keeps e-mails unique across users, primary first", async () => {
      const a = await user("a");
      const b = await user("b");
      const second = await store.addEmail({ userId: a.id, email: "Second@example.com", confirmedAt: null, primary: false });
      expect(second).toMatchObject({ userId: a.id, email: "Second@example.com", confirmedAt: null, primary: false });
      expect(
        await reasonOf(store.addEmail({ userId: b.id, email: "second@EXAMPLE.com", confirmedAt: null, primary: false })),
      ).toBe("ALREADY_EXISTS:EMAIL_TAKEN");
      expect((await store.listEmails(a.id)).map((e) => [e.email, e.primary, e.confirmedAt])).toEqual([
        ["a@example.com", true, at],
        ["Second@example.com", false, null],
      ]);
    });

    it("stores tokens by hash, unique, revocable", async () => {
      const u = await user("t");
      const input = {
        userId: u.id,
        name: "ci",
        scopes: ["api" as const],
        expiresAt: "2027-01-01",
        revoked: false,
        tokenHash: "h1",
        createdAt: at,
      };
      const t = await store.insertToken(input);
      expect(await store.findTokenByHash("h1")).toEqual(t);
      expect(await store.getToken(t.id)).toEqual(t);
      expect(await reasonOf(store.insertToken({ ...input, name: "other" }))).toBe("ALREADY_EXISTS:TOKEN_TAKEN");
      await store.insertToken({ ...input, tokenHash: "h2", expiresAt: null });
      expect((await store.setTokenRevoked(t.id, true))?.revoked).toBe(true);
      expect((await store.listTokensByName(u.id, "ci")).map((x) => [x.tokenHash, x.revoked, x.expiresAt])).toEqual([
        ["h1", true, "2027-01-01"],
        ["h2", false, null],
      ]);
      expect(await store.setTokenRevoked(99999, true)).toBeNull();
      expect(await store.findTokenByHash("nope")).toBeNull();
    });

    it("keeps namespace full paths unique and finds descendants", async () => {
      const top = await store.insertNamespace(group("Acme"));
      const sub = await store.insertNamespace(group("ops", top));
      const deep = await store.insertNamespace(group("db", sub));
      await store.insertNamespace(group("other"));
      expect(await reasonOf(store.insertNamespace(group("acme")))).toBe("ALREADY_EXISTS:PATH_TAKEN");
      expect(await reasonOf(store.insertNamespace(group("OPS", top)))).toBe("ALREADY_EXISTS:PATH_TAKEN");
      expect(await store.findNamespaceByFullPath("ACME/Ops/DB")).toEqual(deep);
      expect((await store.listDescendantGroups([top.id])).map((g) => g.fullPath)).toEqual(["Acme/ops", "Acme/ops/db"]);
      expect((await store.listDescendantGroups([sub.id])).map((g) => g.id)).toEqual([deep.id]);
      expect(await store.listDescendantGroups([])).toEqual([]);
      expect((await store.setNamespacePlan(top.id, "ultimate"))?.plan).toBe("ultimate");
      expect((await store.getNamespaces([deep.id, top.id])).map((g) => [g.id, g.plan])).toEqual([
        [top.id, "ultimate"],
        [deep.id, "free"],
      ]);
      expect(await store.setNamespacePlan(99999, "premium")).toBeNull();
    });

    it("keeps project paths unique, case-insensitively", async () => {
      const top = await store.insertNamespace(group("g"));
      const p = await store.insertProject({ name: "P", path: "p", namespaceId: top.id, pathWithNamespace: "g/p", createdAt: at });
      expect(await store.getProject(p.id)).toEqual(p);
      expect(await store.findProjectByPath("G/P")).toEqual(p);
      expect(
        await reasonOf(
          store.insertProject({ name: "x", path: "P", namespaceId: top.id, pathWithNamespace: "g/P", createdAt: at }),
        ),
      ).toBe("ALREADY_EXISTS:PATH_TAKEN");
      expect(await store.getProject(99999)).toBeNull();
    });

    it("upserts memberships and lists them by user and by source", async () => {
      await store.upsertMembership({ sourceType: "group", sourceId: 1, userId: 5, accessLevel: 30 });
      await store.upsertMembership({ sourceType: "group", sourceId: 1, userId: 5, accessLevel: 40 });
      await store.upsertMembership({ sourceType: "project", sourceId: 1, userId: 5, accessLevel: 10 });
      await store.upsertMembership({ sourceType: "project", sourceId: 2, userId: 6, accessLevel: 20 });
      const mine = await store.listMembershipsOfUser(5);
      expect(mine.sort((a, b) => a.sourceType.localeCompare(b.sourceType))).toEqual([
        { sourceType: "group", sourceId: 1, userId: 5, accessLevel: 40 },
        { sourceType: "project", sourceId: 1, userId: 5, accessLevel: 10 },
      ]);
      const onSources = await store.listMembershipsOfSources([
        { type: "group", id: 1 },
        { type: "project", id: 2 },
      ]);
      expect(onSources.map((m) => m.userId).sort()).toEqual([5, 6]);
      expect(await store.listMembershipsOfSources([])).toEqual([]);
    });

    registerIntegrationKeyCases(() => store);

    it("keeps passwords and blocking, and finds users by confirmed e-mail", async () => {
      const a = await user("alice");
      expect(a).toMatchObject({ blocked: false, passwordHash: null });
      const withPassword = await store.createUser({
        username: "bob",
        email: "bob@example.com",
        name: "Bob",
        isAdmin: false,
        createdAt: at,
        passwordHash: "scrypt$hash",
      });
      expect(withPassword.passwordHash).toBe("scrypt$hash");
      expect(await store.updateUser(a.id, { passwordHash: "p1", blocked: true, name: "Al", isAdmin: true })).toMatchObject({
        id: a.id,
        name: "Al",
        isAdmin: true,
        blocked: true,
        passwordHash: "p1",
      });
      expect(await store.updateUser(a.id, {})).toMatchObject({ blocked: true });
      expect(await store.updateUser(a.id + 1000, { blocked: true })).toBeNull();
      expect((await store.findUserByConfirmedEmail("BOB@example.com"))?.id).toBe(withPassword.id);
      await store.addEmail({ userId: a.id, email: "al@other.io", confirmedAt: null, primary: false });
      expect(await store.findUserByConfirmedEmail("al@other.io")).toBeNull();
      expect((await store.listUsers()).map((u) => u.username)).toEqual(["alice", "bob"]);
    });

    registerSessionCases(() => store, user);

    it("lists tokens of a user, groups, and projects by scope", async () => {
      const a = await user("alice");
      const t1 = await store.insertToken({
        userId: a.id,
        name: "one",
        scopes: ["api"],
        expiresAt: null,
        revoked: false,
        tokenHash: "x1",
        createdAt: at,
      });
      const t2 = await store.insertToken({
        userId: a.id,
        name: "two",
        scopes: ["read_api"],
        expiresAt: null,
        revoked: false,
        tokenHash: "x2",
        createdAt: at,
      });
      expect((await store.listTokensOfUser(a.id)).map((t) => t.id)).toEqual([t2.id, t1.id]);
      const top = await store.insertNamespace(group("top"));
      const sub = await store.insertNamespace(group("sub", top));
      expect((await store.listGroups()).map((g) => g.id)).toEqual([top.id, sub.id]);
      const project = (namespaceId: number, path: string) =>
        store.insertProject({ name: path, path, namespaceId, pathWithNamespace: `ns${namespaceId}/${path}`, createdAt: at });
      const p1 = await project(top.id, "p1");
      const p2 = await project(sub.id, "p2");
      const p3 = await project(a.namespaceId, "p3");
      expect((await store.listProjects("all")).map((p) => p.id)).toEqual([p1.id, p2.id, p3.id]);
      expect((await store.listProjects({ ids: [p3.id], namespaceIds: [sub.id] })).map((p) => p.id)).toEqual([p2.id, p3.id]);
      expect(await store.listProjects({ ids: [], namespaceIds: [] })).toEqual([]);
    });

    it("answers ping", async () => {
      await expect(store.ping()).resolves.toBeUndefined();
    });
  });
}
