import { Router } from "express";
import type { GatewayDeps } from "../deps.js";
import { callContext, principalOf } from "../http/context.js";
import {
  optionalBoolean,
  optionalDate,
  optionalStringArray,
  paramValueInvalid,
  readParams,
  requiredInt,
  requiredString,
} from "../http/params.js";
import { must } from "../presenters/must.js";
import { toEmailJson, toTokenJson, toUserJson } from "../presenters/user.js";

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

  router.post("/users/:id/personal_access_tokens", async (req, res) => {
    const p = readParams(req);
    const userId = requiredInt({ id: req.params.id }, "id");
    const name = requiredString(p, "name");
    const scopes = optionalStringArray(p, "scopes");
    if (!scopes?.length) throw paramValueInvalid("scopes");
    if (!scopes.every((s) => TOKEN_SCOPES.includes(s))) throw paramValueInvalid("scopes");
    const request = { userId, name, scopes, expiresAt: optionalDate(p, "expires_at") ?? "" };
    const { token } = await deps.auth.createPersonalAccessToken(request, callContext(res));
    res.status(201).json(toTokenJson(must(token, "token")));
  });

  router.delete("/personal_access_tokens/:id", async (req, res) => {
    await deps.auth.revokePersonalAccessToken({ id: requiredInt({ id: req.params.id }, "id") }, callContext(res));
    res.status(204).end();
  });

  return router;
}
