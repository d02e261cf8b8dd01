import { describe, expect, it } from "vitest";
import { displayName } from "./names";

describe("notification settings names", () => {
  const names = new Map([
    ["acme", "Acme Corp"],
    ["acme/shop", "Web Shop"],
  ]);

  it("names groups and projects by their namespaces' names, as GitLab shows them", () => {
    expect(displayName("acme/shop", names)).toBe("Acme Corp / Web Shop");
    expect(displayName("acme/shop/checkout", names, "Checkout API")).toBe("Acme Corp / Web Shop / Checkout API");
  });

  it("falls back to the path of a namespace the user is not a member of", () => {
    expect(displayName("other/team/api", names, "API")).toBe("other / team / API");
    expect(displayName("acme/ops", names)).toBe("Acme Corp / ops");
  });
});
