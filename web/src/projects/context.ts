import { createContext, useContext } from "react";
import type { ProjectWithAccess } from "./api";

export const ProjectContext = createContext<ProjectWithAccess | null>(null);

/** The project of the current page (inside ProjectRoutes). */
export function useCurrentProject(): ProjectWithAccess & { fullPath: string } {
  const value = useContext(ProjectContext);
  if (!value) throw new Error("useCurrentProject outside a project page");
  return { ...value, fullPath: value.project.path_with_namespace };
}
