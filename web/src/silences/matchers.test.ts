import { describe, expect, it } from "vitest";
import { matchersForAlert, matcherText, parseMatcherText } from "./matchers";

describe("matchers in text form", () => {
  it("writes and reads back the four operators", () => {
    for (const text of ["alertname=HighCPU", "job!=node", "instance=~web-.*", "env!~prod|stage", "empty="]) {
      const m = parseMatcherText(text);
      expect(m && matcherText(m)).toBe(text);
    }
    expect(parseMatcherText("team=~a=b")).toEqual({ name: "team", value: "a=b", is_regex: true, is_equal: true });
    expect(parseMatcherText("no operator")).toBeNull();
  });
});

describe("Silence alerts like this", () => {
  it("takes a Prometheus alert's labels", () => {
    const alert = {
      title: "High CPU",
      service: null,
      monitoring_tool: "Prometheus",
      payload: { labels: { alertname: "HighCPU", instance: "web-1:9100", count: 3 } },
    };
    expect(matchersForAlert(alert).map(matcherText)).toEqual(["alertname=HighCPU", "instance=web-1:9100"]);
  });

  it("takes the title and the service of another alert, whatever its payload holds", () => {
    const alert = { title: "Disk full", service: "db", monitoring_tool: "Zabbix", payload: { labels: { a: "b" } } };
    expect(matchersForAlert(alert).map(matcherText)).toEqual(["title=Disk full", "service=db"]);
    expect(matchersForAlert({ ...alert, service: null }).map(matcherText)).toEqual(["title=Disk full"]);
  });
});
