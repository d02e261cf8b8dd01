import { authV1 } from "@tocsin/proto";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import {
  ADMIN_TOKEN,
  type AuthOverGrpc,
  as,
  type Client,
  fail,
  onEachStore,
  startAuthOverGrpc,
  sys,
} from "./service.fixtures.js";

/**
 * auth-service over gRPC, on SQLite and on MongoDB: the bootstrap admin token, users and their
 * e-mails, personal access tokens, groups, projects, inherited memberships, visibility and tiers.
 * Integration keys, webhook endpoints and the watch stream: service-integration-keys.test.ts.
 */

const { AccessLevel, Plan } = authV1;

onEachStore(inject("mongoUrl"), describeService);

function describeService(label: string, storeEnv: Record<string, string>) {
  describe(`auth-service over gRPC (${label})`, () => {
    let auth: AuthOverGrpc;
    let client: Client;
    let rootId: number;

    beforeAll(async () => {
      auth = await startAuthOverGrpc(storeEnv);
      ({ client, rootId } = auth);
    });
    afterAll(async () => {
      await auth?.stop();
    });

    const createUser = (username: string) => auth.createUser(username);

    it("authenticates the bootstrap admin token", async () => {
      const { principal } = await client.authenticateToken({ token: ADMIN_TOKEN }, sys);
      expect(principal).toMatchObject({ username: "root", isAdmin: true, scopes: ["api"] });
      const err = await fail(client.authenticateToken({ token: "nope" }, sys));
      expect(err).toMatchObject({ code: "UNAUTHENTICATED", reason: "TOKEN_INVALID", message: "401 Unauthorized" });
    });

    it("creates users with confirmed primary e-mails and rejects duplicates with GitLab fields", async () => {
      const alice = await createUser("alice");
      expect(alice).toMatchObject({ username: "alice", email: "alice@example.com", isAdmin: false });
      const emails = (await client.listEmails({ userId: alice.id }, as(alice.id))).emails;
      expect(emails).toHaveLength(1);
      expect(emails[0]?.confirmedAt).toBeInstanceOf(Date);

      const dup = await fail(
        client.createUser({ username: "ALICE", email: "x@example.com", name: "x", admin: false }, as(rootId)),
      );
      expect(dup).toMatchObject({
        code: "ALREADY_EXISTS",
        reason: "USERNAME_TAKEN",
        fields: { username: ["has already been taken"] },
      });
      const notAdmin = await fail(
        client.createUser({ username: "eve", email: "eve@example.com", name: "e", admin: false }, as(alice.id)),
      );
      expect(notAdmin).toMatchObject({ code: "PERMISSION_DENIED", message: "403 Forbidden" });

      const added = (
        await client.addEmail({ userId: alice.id, email: "alice2@example.com", skipConfirmation: true }, as(alice.id))
      ).email;
      expect(added?.confirmedAt).toBeUndefined();
      const byAdmin = (
        await client.addEmail({ userId: alice.id, email: "alice3@example.com", skipConfirmation: true }, as(rootId))
      ).email;
      expect(byAdmin?.confirmedAt).toBeInstanceOf(Date);
      const listed = (await client.listEmails({ userId: alice.id }, as(alice.id))).emails;
      expect(listed.map((e) => [e.email, e.primary])).toEqual([
        ["alice@example.com", true],
        ["alice2@example.com", false],
        ["alice3@example.com", false],
      ]);
      const taken = await fail(
        client.addEmail({ userId: rootId, email: "Alice2@example.com", skipConfirmation: false }, as(rootId)),
      );
      expect(taken).toMatchObject({ code: "ALREADY_EXISTS", reason: "EMAIL_TAKEN" });
    });

    it("issues, authenticates and revokes personal access tokens", async () => {
      const carol = await createUser("carol");
      const bad = await fail(
        client.createPersonalAccessToken({ userId: carol.id, name: "t", scopes: ["write"], expiresAt: "" }, as(rootId)),
      );
      expect(bad).toMatchObject({
        code: "INVALID_ARGUMENT",
        reason: "PARAM_VALUE_INVALID",
        message: "scopes does not have a valid value",
      });
      const { token } = await client.createPersonalAccessToken(
        { userId: carol.id, name: "t", scopes: ["read_api"], expiresAt: "" },
        as(rootId),
      );
      expect(token).toMatchObject({ name: "t", scopes: ["read_api"], active: true, revoked: false, expiresAt: "" });
      expect(token?.token).toMatch(/^glpat-[A-Za-z0-9_-]{20}$/);
      const plain = token?.token ?? "";
      expect((await client.authenticateToken({ token: plain }, sys)).principal).toMatchObject({
        userId: carol.id,
        scopes: ["read_api"],
      });
      await client.revokePersonalAccessToken({ id: token?.id ?? 0 }, as(carol.id));
      const revoked = await fail(client.authenticateToken({ token: plain }, sys));
      expect(revoked).toMatchObject({
        reason: "TOKEN_REVOKED",
        message: "Token was revoked. You have to re-authorize from the user.",
      });
    });

    it("applies groups, inherited memberships, visibility and tiers", async () => {
      const dave = await createUser("dave");
      const erin = await createUser("erin");
      const forbidden = await fail(
        client.createGroup({ name: "G", path: "g-plan", parentId: 0, plan: Plan.PLAN_PREMIUM }, as(dave.id)),
      );
      expect(forbidden).toMatchObject({ code: "PERMISSION_DENIED", message: "403 Forbidden" });
      const top = (
        await client.createGroup({ name: "Acme", path: "acme", parentId: 0, plan: Plan.PLAN_UNSPECIFIED }, as(dave.id))
      ).group as authV1.Group;
      expect(top).toMatchObject({ fullPath: "acme", plan: Plan.PLAN_FREE, accessLevel: AccessLevel.ACCESS_LEVEL_OWNER });
      const sub = (await client.createGroup({ name: "Ops", path: "ops", parentId: top.id, plan: 0 }, as(dave.id)))
        .group as authV1.Group;
      expect(sub.fullPath).toBe("acme/ops");
      const dupPath = await fail(client.createGroup({ name: "x", path: "ACME", parentId: 0, plan: 0 }, as(erin.id)));
      expect(dupPath).toMatchObject({ code: "ALREADY_EXISTS", reason: "PATH_TAKEN" });

      const project = (await client.createProject({ name: "My Web App", path: "", namespaceId: sub.id }, as(dave.id)))
        .project as authV1.Project;
      expect(project).toMatchObject({ path: "my-web-app", pathWithNamespace: "acme/ops/my-web-app", tier: Plan.PLAN_FREE });
      expect(project.ancestorGroupIds).toEqual([sub.id, top.id]);

      const hidden = await fail(client.getProject({ idOrPath: "ACME/ops/My-Web-App" }, as(erin.id)));
      expect(hidden).toMatchObject({ code: "NOT_FOUND", message: "404 Project Not Found" });
      expect(await fail(client.getGroup({ idOrPath: "acme" }, as(erin.id)))).toMatchObject({ message: "404 Group Not Found" });

      const badLevel = await fail(
        client.addGroupMember({ groupIdOrPath: "acme", userId: erin.id, accessLevel: 35 as authV1.AccessLevel }, as(dave.id)),
      );
      expect(badLevel).toMatchObject({ reason: "PARAM_VALUE_INVALID", message: "access_level does not have a valid value" });
      const noUser = await fail(client.addGroupMember({ groupIdOrPath: "acme", userId: 9999, accessLevel: 30 }, as(dave.id)));
      expect(noUser).toMatchObject({ code: "NOT_FOUND", message: "404 User Not Found" });
      await client.addGroupMember(
        { groupIdOrPath: String(top.id), userId: erin.id, accessLevel: AccessLevel.ACCESS_LEVEL_DEVELOPER },
        as(dave.id),
      );

      const seen = (await client.getProject({ idOrPath: "acme/OPS/my-web-app" }, as(erin.id))).project;
      expect(seen?.accessLevel).toBe(AccessLevel.ACCESS_LEVEL_DEVELOPER);
      const internal = (await client.getProject({ idOrPath: String(project.id) }, sys)).project;
      expect(internal?.accessLevel).toBe(AccessLevel.ACCESS_LEVEL_OWNER);
      const notMaintainer = await fail(
        client.addProjectMember({ projectIdOrPath: String(project.id), userId: erin.id, accessLevel: 40 }, as(erin.id)),
      );
      expect(notMaintainer.code).toBe("PERMISSION_DENIED");

      const members = (await client.listProjectMembers({ projectId: project.id }, sys)).members;
      expect(members.map((m) => [m.user?.username, m.accessLevel])).toEqual([
        ["dave", AccessLevel.ACCESS_LEVEL_OWNER],
        ["erin", AccessLevel.ACCESS_LEVEL_DEVELOPER],
      ]);

      await client.setNamespacePlan({ namespaceId: top.id, plan: Plan.PLAN_ULTIMATE }, as(rootId));
      expect((await client.getProject({ idOrPath: String(project.id) }, sys)).project?.tier).toBe(Plan.PLAN_ULTIMATE);
      const groups = (await client.listUserGroups({ userId: erin.id }, as(erin.id))).groups;
      expect(groups.map((g) => [g.fullPath, g.plan])).toEqual([
        ["acme", Plan.PLAN_ULTIMATE],
        ["acme/ops", Plan.PLAN_ULTIMATE],
      ]);
      const subPlan = await fail(client.setNamespacePlan({ namespaceId: sub.id, plan: Plan.PLAN_PREMIUM }, as(rootId)));
      expect(subPlan.code).toBe("INVALID_ARGUMENT");
      const notAdmin = await fail(client.setNamespacePlan({ namespaceId: top.id, plan: Plan.PLAN_FREE }, as(dave.id)));
      expect(notAdmin.code).toBe("PERMISSION_DENIED");

      const personal = (await client.createProject({ name: "mine", path: "", namespaceId: 0 }, as(erin.id))).project;
      expect(personal).toMatchObject({
        pathWithNamespace: "erin/mine",
        tier: Plan.PLAN_FREE,
        ancestorGroupIds: [],
        accessLevel: 50,
      });
    });
  });
}
