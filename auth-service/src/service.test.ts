import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AppError, type CallContext, type RunningService, sha256, silentLogger, systemClock } from "@tocsin/core";
import { createClient, type PromiseClient } from "@tocsin/grpc";
import { authV1 } from "@tocsin/proto";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { loadConfig } from "./config.js";
import { createAuthService } from "./service.js";
import { MongoAuthStore } from "./store/mongo-auth-store.js";

const { AccessLevel, Plan, IntegrationType, EndpointKind, EndpointState } = authV1;
type Client = PromiseClient<typeof authV1.AuthServiceService>;

const ADMIN_TOKEN = "admin-token-for-auth-tests-0123";
const sys: CallContext = { requestId: "test" };
const as = (userId: number): CallContext => ({ requestId: "test", principal: { userId } });
const fail = (p: Promise<unknown>) =>
  p.then(
    () => expect.fail("expected a failure"),
    (e: unknown) => e as AppError,
  );

const mongoUrl = inject("mongoUrl");
const mongoDb = `tocsin_test_auth_grpc_${process.pid}_${Date.now().toString(36)}`;
if (!mongoUrl) console.warn("auth-service gRPC suite on MongoDB SKIPPED: no MongoDB-protocol server");

describeService("SQLite", {});
describe.skipIf(!mongoUrl)("MongoDB", () => {
  afterAll(async () => {
    const store = await MongoAuthStore.connect(mongoUrl, mongoDb);
    await store.drop();
    await store.close();
  });
  describeService("MongoDB", { MONGO_URL: mongoUrl, MONGO_DB: mongoDb });
});

function describeService(label: string, storeEnv: Record<string, string>) {
  describe(`auth-service over gRPC (${label})`, () => {
    let dir: string;
    let service: RunningService;
    let client: Client;
    let rootId: number;

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), "auth-grpc-"));
      service = await createAuthService(
        loadConfig({
          AUTH_SERVICE_ADDR: "127.0.0.1:0",
          DATA_DIR: dir,
          ADMIN_TOKEN,
          SECRET_KEY: "secret-key-for-tests-0123456789",
          LOG_LEVEL: "silent",
          ...storeEnv,
        }),
        { logger: silentLogger(), clock: systemClock },
      );
      client = createClient(authV1.AuthServiceService, { target: "auth", address: service.address });
      rootId = (await client.authenticateToken({ token: ADMIN_TOKEN }, sys)).principal?.userId ?? 0;
    });
    afterAll(async () => {
      client.close();
      await service.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    const createUser = async (username: string) =>
      (await client.createUser({ username, email: `${username}@example.com`, name: username, admin: false }, as(rootId)))
        .user as authV1.User;

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

    it("issues integration keys and resolves webhook endpoints by tier and state", async () => {
      const frank = await createUser("frank");
      const group = (await client.createGroup({ name: "Mon", path: "mon", parentId: 0, plan: 0 }, as(frank.id)))
        .group as authV1.Group;
      const project = (await client.createProject({ name: "svc", path: "", namespaceId: group.id }, as(frank.id)))
        .project as authV1.Project;
      const issue = async (integrationId: number, type: authV1.IntegrationType) =>
        (await client.issueIntegrationKey({ projectId: project.id, integrationId, type, active: true }, sys))
          .key as authV1.IntegrationKey;
      const first = await issue(101, IntegrationType.INTEGRATION_TYPE_HTTP);
      const second = await issue(102, IntegrationType.INTEGRATION_TYPE_HTTP);
      const prom = await issue(103, IntegrationType.INTEGRATION_TYPE_PROMETHEUS);
      expect(first.token).toMatch(/^[0-9a-f]{32}$/);
      expect(first.endpointIdentifier).toMatch(/^[0-9a-f]{16}$/);
      const keys = (await client.listIntegrationKeys({ projectId: project.id }, sys)).keys;
      expect(keys.map((k) => [k.integrationId, k.token])).toEqual([
        [101, first.token],
        [102, second.token],
        [103, prom.token],
      ]);

      const resolve = (kind: authV1.EndpointKind, endpointIdentifier = "", path = "MON/svc") =>
        client.resolveIntegrationEndpoint({ projectFullPath: path, kind, endpointIdentifier }, sys);
      const r1 = await resolve(EndpointKind.ENDPOINT_KIND_HTTP, first.endpointIdentifier);
      expect(r1).toMatchObject({
        state: EndpointState.ENDPOINT_STATE_ACTIVE,
        projectId: project.id,
        integrationId: 101,
        tier: Plan.PLAN_FREE,
      });
      expect(Buffer.from(r1.tokenSha256).equals(sha256(first.token))).toBe(true);
      expect((await resolve(EndpointKind.ENDPOINT_KIND_HTTP, second.endpointIdentifier)).state).toBe(
        EndpointState.ENDPOINT_STATE_UNAVAILABLE,
      );
      expect((await resolve(EndpointKind.ENDPOINT_KIND_HTTP_LEGACY)).integrationId).toBe(101);
      expect((await resolve(EndpointKind.ENDPOINT_KIND_PROMETHEUS)).integrationId).toBe(103);
      expect((await resolve(EndpointKind.ENDPOINT_KIND_HTTP, "0000000000000000")).state).toBe(
        EndpointState.ENDPOINT_STATE_NOT_FOUND,
      );
      expect((await resolve(EndpointKind.ENDPOINT_KIND_HTTP_LEGACY, "", "nope/nope")).state).toBe(
        EndpointState.ENDPOINT_STATE_NOT_FOUND,
      );

      await client.setNamespacePlan({ namespaceId: group.id, plan: Plan.PLAN_PREMIUM }, as(rootId));
      expect((await resolve(EndpointKind.ENDPOINT_KIND_HTTP, second.endpointIdentifier)).state).toBe(
        EndpointState.ENDPOINT_STATE_ACTIVE,
      );
      await client.setIntegrationKeyActive({ integrationId: 102, active: false }, sys);
      expect((await resolve(EndpointKind.ENDPOINT_KIND_HTTP, second.endpointIdentifier)).state).toBe(
        EndpointState.ENDPOINT_STATE_INACTIVE,
      );

      const reset = (await client.resetIntegrationKey({ integrationId: 101 }, sys)).key;
      expect(reset?.token).not.toBe(first.token);
      expect(reset?.endpointIdentifier).toBe(first.endpointIdentifier);
      await client.deleteIntegrationKey({ integrationId: 101 }, sys);
      await client.deleteIntegrationKey({ integrationId: 101 }, sys);
      expect((await resolve(EndpointKind.ENDPOINT_KIND_HTTP, first.endpointIdentifier)).state).toBe(
        EndpointState.ENDPOINT_STATE_NOT_FOUND,
      );
      const dup = await fail(issue(102, IntegrationType.INTEGRATION_TYPE_HTTP));
      expect(dup.code).toBe("ALREADY_EXISTS");
    });

    it("streams key and plan changes to watchers until they cancel", async () => {
      const gina = await createUser("gina");
      const group = (await client.createGroup({ name: "W", path: "watch", parentId: 0, plan: 0 }, as(gina.id)))
        .group as authV1.Group;
      const project = (await client.createProject({ name: "p", path: "", namespaceId: group.id }, as(gina.id)))
        .project as authV1.Project;
      const stream = client.stream("watchIntegrationKeys", {}, sys);
      const events: authV1.WatchIntegrationKeysResponse[] = [];
      let subscribed: () => void = () => {};
      const ready = new Promise<void>((resolve) => {
        subscribed = resolve;
      });
      const three = new Promise<void>((resolve) =>
        stream.on("data", (e: authV1.WatchIntegrationKeysResponse) => {
          events.push(e);
          if (events.length === 1) subscribed();
          if (events.length === 3) resolve();
        }),
      );
      stream.on("error", () => {});
      await ready;
      await client.issueIntegrationKey(
        { projectId: project.id, integrationId: 201, type: IntegrationType.INTEGRATION_TYPE_HTTP, active: true },
        sys,
      );
      await client.setNamespacePlan({ namespaceId: group.id, plan: Plan.PLAN_PREMIUM }, as(rootId));
      await three;
      expect(events).toEqual([
        { projectId: 0, projectFullPath: "", all: true },
        { projectId: project.id, projectFullPath: "watch/p", all: false },
        { projectId: 0, projectFullPath: "", all: true },
      ]);
      stream.cancel();
    });
  });
}
