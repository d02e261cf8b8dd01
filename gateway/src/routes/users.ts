import { forbidden } from "@tocsin/core";
import { type Request, type Response, Router } from "express";
import type { GatewayDeps } from "../deps.js";
import { callContext, principalOf } from "../http/context.js";
import { noStore } from "../http/no-store.js";
import { pageFromRequest, setPaginationHeaders } from "../http/pagination.js";
import {
  optionalBoolean,
  optionalDate,
  optionalInt,
  optionalString,
  optionalStringArray,
  paramValueInvalid,
  readParams,
  requiredInt,
  requiredString,
} from "../http/params.js";
import { must } from "../presenters/must.js";
import { toEmailJson, toTokenJson, toUserJson } from "../presenters/user.js";
import { clearSessionCookie } from "../session/cookie.js";

const TOKEN_SCOPES = ["api", "read_api"];

/** Users, their e-mails and personal access tokens (PRODUCT.md section 2). */
export function userRoutes(deps: GatewayDeps): Router {
  const router = Router();

  router.get("/user", async (_req, res) => {
    const { user } = await deps.auth.getUser({ id: principalOf(res).userId }, callContext(res));
    res.json(toUserJson(must(user, "user")));
  });

  router.post("/users", async (req, res) => {
    const p = readParams(req);
    const request = {
      username: requiredString(p, "username"),
      email: requiredString(p, "email"),
      name: requiredString(p, "name"),
      admin: optionalBoolean(p, "admin") ?? false,
      password: optionalString(p, "password") ?? "",
    };
    const { user } = await deps.auth.createUser(request, callContext(res));
    res.status(201).json(toUserJson(must(user, "user")));
  });

  router.post("/users/:id/emails", async (req, res) => {
    const p = readParams(req);
    const request = {
      userId: requiredInt({ id: req.params.id }, "id"),
      email: requiredString(p, "email"),
      skipConfirmation: optionalBoolean(p, "skip_confirmation") ?? false,
    };
    const { email } = await deps.auth.addEmail(request, callContext(res));
    res.status(201).json(toEmailJson(must(email, "email")));
  });

  router.post("/user/emails", async (req, res) => {
    const request = { userId: principalOf(res).userId, email: requiredString(readParams(req), "email"), skipConfirmation: false };
    const { email } = await deps.auth.addEmail(request, callContext(res));
    res.status(201).json(toEmailJson(must(email, "email")));
  });

  router.get("/user/emails", async (_req, res) => {
    const { emails } = await deps.auth.listEmails({ userId: principalOf(res).userId }, callContext(res));
    res.json(emails.map(toEmailJson));
  });

  router.put("/user/password", async (req, res) => {
    const p = readParams(req);
    const request = { currentPassword: requiredString(p, "current_password"), password: requiredString(p, "password") };
    await deps.auth.changePassword(request, callContext(res));
    // Every session of the user ended, this one included.
    clearSessionCookie(res, deps.config);
    res.status(204).end();
  });

  const createToken = async (req: Request, res: Response, userId: number) => {
    const p = readParams(req);
    const name = requiredString(p, "name");
    const scopes = optionalStringArray(p, "scopes");
    if (!scopes?.length) throw paramValueInvalid("scopes");
    if (!scopes.every((s) => TOKEN_SCOPES.includes(s))) throw paramValueInvalid("scopes");
    const request = { userId, name, scopes, expiresAt: optionalDate(p, "expires_at") ?? "" };
    const { token } = await deps.auth.createPersonalAccessToken(request, callContext(res));
    res.status(201).json(toTokenJson(must(token, "token")));
  };
  // GitLab's admin route (any user); users create their own tokens through /user/personal_access_tokens.
  router.post("/users/:id/personal_access_tokens", noStore, (req, res) => {
    if (!principalOf(res).isAdmin) throw forbidden();
    return createToken(req, res, requiredInt({ id: req.params.id }, "id"));
  });
  router.post("/user/personal_access_tokens", noStore, (req, res) => createToken(req, res, principalOf(res).userId));

  router.get("/personal_access_tokens", async (req, res) => {
    const userId = optionalInt(readParams(req), "user_id") ?? principalOf(res).userId;
    const { tokens } = await deps.auth.listPersonalAccessTokens({ userId }, callContext(res));
    const page = pageFromRequest(req);
    setPaginationHeaders(req, res, page, tokens.length);
    const start = (page.page - 1) * page.perPage;
    res.json(tokens.slice(start, start + page.perPage).map(toTokenJson));
  });

  router.delete("/personal_access_tokens/:id", async (req, res) => {
    await deps.auth.revokePersonalAccessToken({ id: requiredInt({ id: req.params.id }, "id") }, callContext(res));
    res.status(204).end();
  });

  return router;
}
