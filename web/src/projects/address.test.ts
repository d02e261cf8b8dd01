import { describe, expect, it } from "vitest";
import { safeReturnPath } from "../session/redirect";
import { projectPath, splitProjectAddress } from "./address";

describe("console addresses", () => {
  it("splits a nested project path from its page at /-/", () => {
    expect(splitProjectAddress("/ops/web")).toEqual({ fullPath: "ops/web", page: [] });
    expect(splitProjectAddress("/a/b/c/-/alert_management/3/details")).toEqual({
      fullPath: "a/b/c",
      page: ["alert_management", "3", "details"],
    });
    expect(splitProjectAddress("/ops/web/-/settings/operations/")).toEqual({
      fullPath: "ops/web",
      page: ["settings", "operations"],
    });
    expect(splitProjectAddress("/")).toBeNull();
    expect(splitProjectAddress("/-/profile")).toBeNull();
    expect(projectPath("a/b", "alert_management", 3, "details")).toBe("/a/b/-/alert_management/3/details");
  });

  it("returns after sign-in only to a path of this site", () => {
    expect(safeReturnPath("/ops/web/-/alert_management?status=all")).toBe("/ops/web/-/alert_management?status=all");
    for (const bad of [null, "", "https://evil.example", "//evil.example", "/\\evil.example", "/users/sign_in"])
      expect(safeReturnPath(bad)).toBe("/");
  });
});
