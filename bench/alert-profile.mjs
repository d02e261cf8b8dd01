#!/usr/bin/env node
// Reads V8 .cpuprofile files (from `node --cpu-prof`) and prints the functions with the most
// self time, and the share of time by package (node_modules/<pkg>, node: internals, our code).
// Usage: node bench/alert-profile.mjs <file-or-dir> [top=20]
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

function where(url) {
  if (!url) return "(native/v8)";
  if (url.startsWith("node:")) return "node:internals";
  const m = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
  if (m) return m[1];
  const own = url.match(/\/(libs\/[^/]+|[a-z-]+-service|gateway)\//);
  return own ? own[1] : url;
}

/** Self time per function and per package of one profile: `{ total, functions, packages }` (ms). */
export function analyse(profile) {
  const dt = new Map();
  const { samples = [], timeDeltas = [] } = profile;
  for (let i = 0; i < samples.length; i++) dt.set(samples[i], (dt.get(samples[i]) ?? 0) + (timeDeltas[i] ?? 0) / 1000);
  const functions = new Map();
  const packages = new Map();
  let total = 0;
  for (const node of profile.nodes) {
    const ms = dt.get(node.id) ?? 0;
    if (!ms) continue;
    total += ms;
    const { functionName, url, lineNumber } = node.callFrame;
    const key = `${functionName || "(anonymous)"} ${url ? `${url.replace(/^.*\/(node_modules|work\/main)\//, "")}:${lineNumber + 1}` : ""}`;
    functions.set(key, (functions.get(key) ?? 0) + ms);
    if (functionName === "(idle)") continue;
    const pkg = where(url);
    packages.set(pkg, (packages.get(pkg) ?? 0) + ms);
  }
  const sorted = (m) => [...m.entries()].sort((a, b) => b[1] - a[1]);
  return { total, functions: sorted(functions), packages: sorted(packages) };
}

/** Prints the top of a profile; returns the analysis. */
export function report(file, top = 20) {
  const a = analyse(JSON.parse(readFileSync(file, "utf8")));
  const idle = a.functions.find(([k]) => k.startsWith("(idle)"))?.[1] ?? 0;
  const busy = a.total - idle;
  const pct = (ms) => `${((100 * ms) / busy).toFixed(1)}%`;
  console.log(
    `\n## ${file}: ${(a.total / 1000).toFixed(1)} s sampled, ${(busy / 1000).toFixed(1)} s busy (percentages of busy time)`,
  );
  console.log("self time by package:");
  for (const [k, ms] of a.packages.slice(0, 12)) console.log(`  ${pct(ms).padStart(6)}  ${k}`);
  console.log("self time by function:");
  for (const [k, ms] of a.functions.filter(([k]) => !k.startsWith("(idle)")).slice(0, top))
    console.log(`  ${pct(ms).padStart(6)}  ${k}`);
  return a;
}

/** Reports every .cpuprofile of a folder (or one file). */
export function reportDir(target, top = 20) {
  const files = statSync(target).isDirectory()
    ? readdirSync(target)
        .filter((f) => f.endsWith(".cpuprofile"))
        .map((f) => join(target, f))
    : [target];
  for (const f of files) report(f, top);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const target = process.argv[2];
  if (!target) {
    console.error("usage: node bench/alert-profile.mjs <file.cpuprofile|dir> [top]");
    process.exit(2);
  }
  reportDir(target, Number(process.argv[3] ?? 20));
}
