import type { ServiceHandlers } from "@tocsin/grpc";
import type { authV1 } from "@tocsin/proto";
import { toGroup, toMember, toPage, toProject } from "./mappers.js";
import type { UseCases } from "./use-cases.js";

type Def = typeof authV1.AuthServiceService;
type ListingKeys = "listProjects" | "listGroups" | "listGroupMembers";

/** The lists the console shows: projects and groups the caller can see, a group's members. */
export function listingHandlers(u: UseCases): Pick<ServiceHandlers<Def>, ListingKeys> {
  return {
    listProjects: async (req, ctx) => {
      const { items, total } = await u.listings.listProjects(ctx, { ...req, page: toPage(req.page) });
      return { projects: items.map(toProject), total };
    },
    listGroups: async (req, ctx) => {
      const { items, total } = await u.listings.listGroups(ctx, { ...req, page: toPage(req.page) });
      return { groups: items.map(toGroup), total };
    },
    listGroupMembers: async (req, ctx) => ({
      members: (await u.listings.listGroupMembers(ctx, req.groupIdOrPath)).map(toMember),
    }),
  };
}
