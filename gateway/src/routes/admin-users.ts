import { Router } from "express";
import type { GatewayDeps } from "../deps.js";
import { callContext } from "../http/context.js";
import { pageFromRequest, setPaginationHeaders } from "../http/pagination.js";
import { optionalBoolean, optionalString, readParams, requiredInt } from "../http/params.js";
import { must } from "../presenters/must.js";
import { toUserJson } from "../presenters/user.js";

/** What admins do to users: list, edit (password, name, admin), block and unblock. */
export function adminUserRoutes(deps: GatewayDeps): Router {
  const router = Router();
  const idOf = (id: string | undefined) => requiredInt({ id }, "id");

  router.get("/users", async (req, res) => {
    const page = pageFromRequest(req);
    const search = optionalString(readParams(req), "search") ?? "";
    const { users, total } = await deps.auth.listUsers({ search, page }, callContext(res));
    setPaginationHeaders(req, res, page, total);
    res.json(users.map(toUserJson));
  });

  router.put("/users/:id", async (req, res) => {
    const p = readParams(req);
    const request = {
      id: idOf(req.params.id),
      password: optionalString(p, "password"),
      name: optionalString(p, "name"),
      admin: optionalBoolean(p, "admin"),
    };
    const { user } = await deps.auth.updateUser(request, callContext(res));
    res.json(toUserJson(must(user, "user")));
  });

  router.post("/users/:id/block", async (req, res) => {
    await deps.auth.blockUser({ id: idOf(req.params.id) }, callContext(res));
    res.status(201).json(true);
  });

  router.post("/users/:id/unblock", async (req, res) => {
    await deps.auth.unblockUser({ id: idOf(req.params.id) }, callContext(res));
    res.status(201).json(true);
  });

  return router;
}
