import type { Matcher } from "./types";

/** The four operators, in Alertmanager's text form. */
export const OPERATORS = ["=", "!=", "=~", "!~"] as const;
export type Operator = (typeof OPERATORS)[number];

export function operatorOf(m: Pick<Matcher, "is_regex" | "is_equal">): Operator {
  if (m.is_regex) return m.is_equal ? "=~" : "!~";
  return m.is_equal ? "=" : "!=";
}

export function matcherOf(name: string, op: Operator, value: string): Matcher {
  return { name, value, is_regex: op === "=~" || op === "!~", is_equal: op === "=" || op === "=~" };
}

/** `name=value`, `name=~regex`, `name!=value`, `name!~regex`. */
export const matcherText = (m: Matcher) => `${m.name}${operatorOf(m)}${m.value}`;

/** The inverse of matcherText (names never hold `=`, `!` or `~`); null when there is no operator. */
export function parseMatcherText(text: string): Matcher | null {
  const found = /^([^=!~]*)(=~|!~|!=|=)(.*)$/s.exec(text);
  if (!found) return null;
  return matcherOf(found[1] ?? "", found[2] as Operator, found[3] ?? "");
}

interface AlertLike {
  title: string;
  service: string | null;
  monitoring_tool: string | null;
  payload: unknown;
}

/**
 * The matchers of *Silence alerts like this*: a Prometheus alert's labels (what the gate matches,
 * `subject.ts`), else its title, and its service when it has one.
 */
export function matchersForAlert(alert: AlertLike): Matcher[] {
  const payload = alert.payload;
  const labels =
    alert.monitoring_tool === "Prometheus" && payload && typeof payload === "object" && "labels" in payload
      ? (payload as { labels: unknown }).labels
      : null;
  if (labels && typeof labels === "object" && !Array.isArray(labels)) {
    const fromLabels = Object.entries(labels)
      .filter((e): e is [string, string] => typeof e[1] === "string" && e[1] !== "")
      .map(([name, value]) => matcherOf(name, "=", value));
    if (fromLabels.length > 0) return fromLabels;
  }
  const out = [matcherOf("title", "=", alert.title)];
  if (alert.service) out.push(matcherOf("service", "=", alert.service));
  return out;
}
