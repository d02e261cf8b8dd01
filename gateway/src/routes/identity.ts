import { Router } from "express";
import type { GatewayDeps } from "../deps.js";
import { adminUserRoutes } from "./admin-users.js";
import { listRoutes } from "./lists.js";
import { namespaceRoutes } from "./namespaces.js";
import { projectRoutes } from "./projects.js";
import { userRoutes } from "./users.js";

/** Identity and administration (PRODUCT.md section 2): each route is one auth-service call. */
export function identityRoutes(deps: GatewayDeps): Router {
  const router = Router();
  router.use(userRoutes(deps), adminUserRoutes(deps), listRoutes(deps), namespaceRoutes(deps), projectRoutes(deps));
  return router;
}
