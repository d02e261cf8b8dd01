/**
 * "Group / Subgroup / Project", as GitLab names them: each namespace of `fullPath` by its name when
 * it is one of `names` (the user's groups), else by its path.
 */
export function displayName(fullPath: string, names: Map<string, string>, ownName?: string): string {
  const parts = fullPath.split("/");
  const shown = parts.map((part, i) => names.get(parts.slice(0, i + 1).join("/")) ?? part);
  if (ownName !== undefined) shown[shown.length - 1] = ownName;
  return shown.join(" / ");
}
