import { AppError, notFound, silentLogger } from "@tocsin/core";
import { createGrpcServer, type GrpcServer, type ServiceHandlers } from "@tocsin/grpc";
import { alertV1, authV1, PROTO_FILES } from "@tocsin/proto";

type AuthDef = typeof authV1.AuthServiceService;
type AlertDef = typeof alertV1.AlertServiceService;

/** Every RPC of a service answering UNIMPLEMENTED (501 through the gateway). */
function unimplemented(definition: object): Record<string, unknown> {
  const handlers: Record<string, unknown> = {};
  for (const name of Object.keys(definition)) {
    handlers[name] = async () => {
      throw new AppError("UNIMPLEMENTED", "UNIMPLEMENTED", "501 Not Implemented");
    };
  }
  return handlers;
}

export const STUB_TOKENS = {
  api: "stub-api-token-0123456789",
  readApi: "stub-read-api-token-0123456789",
  expired: "stub-expired-token-0123456789",
  revoked: "stub-revoked-token-0123456789",
} as const;

const principal = (scopes: string[]): authV1.Principal => ({
  userId: 7,
  username: "alice",
  isAdmin: false,
  scopes,
  tokenId: 3,
  expiresAt: "",
  sessionId: 0,
});

const STUB_USER: authV1.User = {
  id: 7,
  username: "alice",
  name: "Alice",
  email: "alice@example.com",
  isAdmin: false,
  createdAt: new Date("2026-01-02T03:04:05.678Z"),
  namespaceId: 11,
  blocked: false,
  hasPassword: false,
};

/**
 * A tiny auth-service over real gRPC for the gateway's own tests: a few tokens, one user, and
 * `getGroup("boom")` failing unexpectedly. Every other RPC is UNIMPLEMENTED unless overridden.
 */
export function stubAuthHandlers(overrides: Partial<ServiceHandlers<AuthDef>> = {}): ServiceHandlers<AuthDef> {
  const handlers = unimplemented(authV1.AuthServiceService);
  const base: Partial<ServiceHandlers<AuthDef>> = {
    async authenticateToken({ token }) {
      if (token === STUB_TOKENS.api) return { principal: principal(["api"]) };
      if (token === STUB_TOKENS.readApi) return { principal: principal(["read_api"]) };
      if (token === STUB_TOKENS.expired)
        throw new AppError(
          "UNAUTHENTICATED",
          "TOKEN_EXPIRED",
          "Token is expired. You can either do re-authorization or token refresh.",
        );
      if (token === STUB_TOKENS.revoked)
        throw new AppError("UNAUTHENTICATED", "TOKEN_REVOKED", "Token was revoked. You have to re-authorize from the user.");
      throw new AppError("UNAUTHENTICATED", "TOKEN_INVALID", "401 Unauthorized");
    },
    async getUser({ id }) {
      if (id !== STUB_USER.id) throw notFound("User");
      return { user: STUB_USER };
    },
    async getGroup({ idOrPath }) {
      if (idOrPath === "boom") throw new Error("secret detail: database password hunter2");
      throw notFound("Group");
    },
  };
  return { ...handlers, ...base, ...overrides } as ServiceHandlers<AuthDef>;
}

export interface StubServer {
  address: string;
  server: GrpcServer;
  stop(): Promise<void>;
}

/**
 * Starts a gRPC server on a free port serving health and: for `auth`, the auth handlers (the stub
 * ones by default); for `alert` given handlers, AlertService with those and every other RPC
 * UNIMPLEMENTED (no handlers: health only, as for `settings`).
 */
export async function startStubServer(kind: "auth", handlers?: ServiceHandlers<AuthDef>): Promise<StubServer>;
export async function startStubServer(kind: "alert", handlers?: Partial<ServiceHandlers<AlertDef>>): Promise<StubServer>;
export async function startStubServer(kind: "settings"): Promise<StubServer>;
export async function startStubServer(kind: "auth" | "alert" | "settings", handlers?: object): Promise<StubServer> {
  const server = createGrpcServer({ logger: silentLogger(), protoFiles: [PROTO_FILES[kind]], serviceNames: [`${kind}.v1.Stub`] });
  if (kind === "auth") server.add(authV1.AuthServiceService, (handlers as ServiceHandlers<AuthDef>) ?? stubAuthHandlers());
  if (kind === "alert" && handlers)
    server.add(alertV1.AlertServiceService, {
      ...unimplemented(alertV1.AlertServiceService),
      ...handlers,
    } as ServiceHandlers<AlertDef>);
  const port = await server.listen("127.0.0.1:0");
  server.setServing(true);
  return { address: `127.0.0.1:${port}`, server, stop: () => server.shutdown(500) };
}
