import { randomBytes } from "node:crypto";
import { type CallContext, type Clock, notFound, sha256Hex, TtlCache, unauthenticated } from "@tocsin/core";
import type { AccessEvent, AccessEvents } from "./access-events.js";
import { isPrivileged, requireSelfOrAdmin, resolveActor } from "./actor.js";
import type { AuthStore } from "./ports.js";
import { userBlocked } from "./sessions.js";
import type { Scope, TokenRecord } from "./types.js";
import { isExpired, requireText, validateExpiresAt, validateScopes } from "./validation.js";

/** Who a token belongs to, as AuthenticateToken answers. */
export interface TokenPrincipal {
  userId: number;
  username: string;
  isAdmin: boolean;
  scopes: Scope[];
  tokenId: number;
  /** `YYYY-MM-DD` (UTC) from which the token no longer works; null for never. */
  expiresAt: string | null;
}

export interface CreatedToken {
  record: TokenRecord;
  /** The plain token; returned once, never stored. */
  token: string;
}

const TOKEN_PREFIX = "glpat-";
export const TOKEN_EXPIRED_MESSAGE = "Token is expired. You can either do re-authorization or token refresh.";
const TOKEN_REVOKED_MESSAGE = "Token was revoked. You have to re-authorize from the user.";

/** A new plain token: `glpat-` + 20 URL-safe characters (120 random bits). */
function generateToken(): string {
  return TOKEN_PREFIX + randomBytes(15).toString("base64url");
}

export function hashToken(token: string): string {
  return sha256Hex(token);
}

interface CacheEntry {
  principal: TokenPrincipal;
  expiresAt: string | null;
}

export interface TokenServiceOptions {
  /** How long a successful look-up is reused; failures are never cached. */
  cacheTtlMs?: number;
  cacheMaxEntries?: number;
  /** Told about every revocation (WatchAccessChanges). */
  events?: AccessEvents;
}

/** Personal access tokens: creation, revocation and the hot-path authentication. */
export class TokenService {
  private readonly cache: TtlCache<string, CacheEntry>;
  private readonly events: AccessEvents | undefined;
  /** Off while this replica may miss another replica's revocation (its event subscription is down). */
  private caching = true;
  /** Bumped by every invalidation, so that a look-up that read the store before it is not kept. */
  private generation = 0;

  constructor(
    private readonly store: AuthStore,
    private readonly clock: Clock,
    options: TokenServiceOptions = {},
  ) {
    this.cache = new TtlCache({
      ttlMs: options.cacheTtlMs ?? 10_000,
      maxEntries: options.cacheMaxEntries ?? 10_000,
      now: () => clock.now().getTime(),
    });
    this.events = options.events;
  }

  /** For oneself, or for any user as an admin. */
  async createToken(
    ctx: CallContext,
    input: { userId: number; name: string; scopes: string[]; expiresAt: string },
  ): Promise<CreatedToken> {
    requireSelfOrAdmin(await resolveActor(this.store, ctx), input.userId);
    const name = requireText(input.name, "name");
    const scopes = validateScopes(input.scopes);
    const expiresAt = validateExpiresAt(input.expiresAt);
    if (!(await this.store.getUser(input.userId))) throw notFound("User");
    const token = generateToken();
    const record = await this.store.insertToken({
      userId: input.userId,
      name,
      scopes,
      expiresAt,
      revoked: false,
      tokenHash: hashToken(token),
      createdAt: this.clock.now(),
    });
    return { record, token };
  }

  /** A user's tokens, newest first: the user themselves or an admin. */
  async listTokens(ctx: CallContext, userId: number): Promise<TokenRecord[]> {
    requireSelfOrAdmin(await resolveActor(this.store, ctx), userId);
    if (!(await this.store.getUser(userId))) throw notFound("User");
    return this.store.listTokensOfUser(userId);
  }

  /** Owner or admin; idempotent. Anyone else learns nothing: `404 Not Found`. */
  async revokeToken(ctx: CallContext, id: number): Promise<void> {
    const actor = await resolveActor(this.store, ctx);
    const token = await this.store.getToken(id);
    const mayRevoke = token && (isPrivileged(actor) || (actor.kind === "user" && actor.user.id === token.userId));
    if (!token || !mayRevoke) throw notFound();
    await this.store.setTokenRevoked(id, true);
    this.generation++;
    this.cache.delete(token.tokenHash);
    await this.events?.tokenRevoked(id);
  }

  /** Resolves a plain token; UNAUTHENTICATED with TOKEN_INVALID, TOKEN_EXPIRED or TOKEN_REVOKED. */
  async authenticate(token: string): Promise<TokenPrincipal> {
    const hash = hashToken(token);
    const now = this.clock.now();
    const hit = this.cache.get(hash);
    if (hit && !isExpired(hit.expiresAt, now)) return hit.principal;
    this.cache.delete(hash);

    const startedAt = this.generation;
    const record = token ? await this.store.findTokenByHash(hash) : null;
    if (!record) throw unauthenticated("TOKEN_INVALID");
    if (isExpired(record.expiresAt, now)) throw unauthenticated("TOKEN_EXPIRED", TOKEN_EXPIRED_MESSAGE);
    if (record.revoked) throw unauthenticated("TOKEN_REVOKED", TOKEN_REVOKED_MESSAGE);
    const user = await this.store.getUser(record.userId);
    if (!user) throw unauthenticated("TOKEN_INVALID");
    if (user.blocked) throw userBlocked();

    const principal: TokenPrincipal = {
      userId: user.id,
      username: user.username,
      isAdmin: user.isAdmin,
      scopes: record.scopes,
      tokenId: record.id,
      expiresAt: record.expiresAt,
    };
    if (!this.caching || startedAt !== this.generation) return principal;
    this.cache.set(hash, { principal, expiresAt: record.expiresAt });
    return principal;
  }

  /** Drops every cached look-up (tests, admin changes). */
  clearCache(): void {
    this.generation++;
    this.cache.clear();
  }

  /** An access change from any replica: drops the look-ups it makes stale. */
  invalidate(event: AccessEvent): void {
    this.generation++;
    if (event.all) {
      this.cache.clear();
      return;
    }
    const revoked = new Set(event.revokedTokenIds);
    this.cache.deleteWhere((entry) => revoked.has(entry.principal.tokenId));
  }

  /** Turns the look-up cache off (emptied) while access events may be missed, and on again. */
  setCaching(on: boolean): void {
    this.caching = on;
    if (!on) this.clearCache();
  }
}
