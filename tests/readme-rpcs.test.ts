import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * A service README lists the RPCs its `.proto` files declare (issue 21, item 6): every RPC is
 * named in the README, and every call the README writes as `Name(…)` exists. Names may be
 * written as GitLab-style shorthands, `Create/Get/Update/DeleteHttpIntegration`.
 */
const root = fileURLToPath(new URL("..", import.meta.url));
const services = [
  { readme: "auth-service/README.md", protos: "proto/auth/v1" },
  { readme: "alert-service/README.md", protos: "proto/alert/v1" },
  { readme: "settings-service/README.md", protos: "proto/settings/v1" },
];

function rpcsOf(dir: string): Set<string> {
  const names = new Set<string>();
  for (const file of readdirSync(join(root, dir)).filter((f) => f.endsWith(".proto"))) {
    const text = readFileSync(join(root, dir, file), "utf8");
    for (const m of text.matchAll(/^\s*rpc\s+(\w+)\s*\(/gm)) names.add(m[1] as string);
  }
  return names;
}

/** Every RPC-like name the README mentions (prose, tables, code), shorthands expanded. */
function namesIn(readme: string): { mentioned: Set<string>; called: Set<string> } {
  const mentioned = new Set<string>();
  const called = new Set<string>();
  for (const t of readme.matchAll(/((?:[A-Z][a-z]+\/)+)([A-Z][a-z]+)(\w*)/g)) {
    // `Create/Get/DeleteHttpIntegration`: each verb with the noun of the last one.
    const verbs = [...(t[1] as string).split("/").filter(Boolean), t[2] as string];
    for (const verb of verbs) mentioned.add(`${verb}${t[3]}`);
  }
  for (const t of readme.matchAll(/\b([A-Z][A-Za-z0-9]+)\b(\()?/g)) {
    mentioned.add(t[1] as string);
    if (t[2]) called.add(t[1] as string);
  }
  return { mentioned, called };
}

/** How this project's RPC names begin (a class written as `SecretBox(…)` is no RPC). */
const RPC_VERB =
  /^(Get|List|Create|Update|Delete|Set|Add|Reset|Resolve|Watch|Issue|Revoke|Batch|Authenticate|Block|Unblock|Change|Ingest|Send|Parse)[A-Z]/;

describe("service READMEs list their RPCs as the .proto files declare them", () => {
  for (const { readme, protos } of services) {
    it(readme, () => {
      const rpcs = rpcsOf(protos);
      const { mentioned, called } = namesIn(readFileSync(join(root, readme), "utf8"));
      const undocumented = [...rpcs].filter((r) => !mentioned.has(r));
      const unknown = [...called].filter((c) => RPC_VERB.test(c) && !rpcs.has(c));
      expect(undocumented, `RPCs of ${protos} that ${readme} does not name`).toEqual([]);
      expect(unknown, `calls ${readme} names that ${protos} does not declare`).toEqual([]);
    });
  }
});

/** The variables a process's `config.ts` reads (its zod schema's UPPER_SNAKE keys). */
function variablesOf(configFile: string): string[] {
  const text = readFileSync(join(root, configFile), "utf8");
  return [...new Set([...text.matchAll(/^\s+([A-Z][A-Z0-9_]+):/gm)].map((m) => m[1] as string))];
}

describe("service READMEs list the variables their config.ts reads", () => {
  for (const dir of ["auth-service", "alert-service", "settings-service", "gateway"]) {
    it(dir, () => {
      const readme = readFileSync(join(root, dir, "README.md"), "utf8");
      const missing = variablesOf(join(dir, "src", "config.ts")).filter((v) => !readme.includes(`\`${v}\``));
      expect(missing, `variables of ${dir}/src/config.ts missing from ${dir}/README.md`).toEqual([]);
    });
  }
});

describe("the repository maps match the repository", () => {
  // The folders git tracks (a test's scratch folder or `data/` is not the repository).
  const tracked = execFileSync("git", ["ls-files"], { cwd: root, encoding: "utf8" }).split("\n");
  const topLevel = [...new Set(tracked.filter((f) => f.includes("/")).map((f) => f.split("/")[0] as string))].filter(
    (d) => !d.startsWith("."),
  );
  for (const doc of ["README.md", "docs/architecture.md"]) {
    it(`${doc} names every top-level folder, and no folder that is gone`, () => {
      const text = readFileSync(join(root, doc), "utf8");
      const from = text.indexOf("## Repository map");
      const end = text.indexOf("\n## ", from + 1);
      const map = text.slice(from, end < 0 ? undefined : end);
      expect(text.includes("## Repository map"), `${doc} has a "Repository map" section`).toBe(true);
      const rows = [...map.matchAll(/^\| `([^`/]+)\/?[^`]*`/gm)].map((m) => m[1] as string);
      expect(topLevel.filter((d) => !rows.includes(d))).toEqual([]);
      expect(rows.filter((r) => !topLevel.includes(r) && r !== ".ci")).toEqual([]);
    });
  }
});
