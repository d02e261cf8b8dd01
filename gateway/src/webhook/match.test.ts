import { describe, expect, it } from "vitest";
import { requestPath } from "./match.js";

// The webhook handler runs before express, so it must see the path express's router would
// (parseurl): the expected values below are parseurl's answers for the same targets.
describe("requestPath", () => {
  it.each([
    ["/g/p/alerts/notify.json", "/g/p/alerts/notify.json"],
    ["/g/p/alerts/notify.json?x=1", "/g/p/alerts/notify.json"],
    ["/g/p/alerts/notify/a/b#c", "/g/p/alerts/notify/a/b"],
    ["/g/p/alerts/notify/a/b?x#y", "/g/p/alerts/notify/a/b"],
    ["/g/p/alerts/notify/a{b/c?x y", "/g/p/alerts/notify/a%7Bb/c"],
    ["http://h/g/p/alerts/notify.json?a", "/g/p/alerts/notify.json"],
    ["//g/p/alerts/notify.json", "//g/p/alerts/notify.json"],
    ["/a b", "/a%20b"],
    ["/g/p/alerts/notify/s/%41b", "/g/p/alerts/notify/s/%41b"],
    ["/?", "/"],
    ["*", "*"],
  ])("%j → %j", (target, path) => {
    expect(requestPath(target)).toBe(path);
  });
});
