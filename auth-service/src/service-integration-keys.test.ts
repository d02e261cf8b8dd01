import { sha256 } from "@tocsin/core";
import { authV1 } from "@tocsin/proto";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { type AuthOverGrpc, as, type Client, fail, onEachStore, startAuthOverGrpc, sys } from "./service.fixtures.js";

/**
 * auth-service over gRPC, on SQLite and on MongoDB: integration keys, the webhook endpoints they
 * resolve by tier and state, and the stream of key and plan changes to watchers. The admin token,
 * users, tokens, groups and projects: service-identity.test.ts.
 */

const { Plan, IntegrationType, EndpointKind, EndpointState } = authV1;

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
