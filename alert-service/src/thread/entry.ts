import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";

/**
 * How to start one of this folder's thread files (`worker`, `checkpointer`) as a Worker. Built
 * (dist/thread/*.js): the file itself. From the TypeScript sources (tests, `node --import tsx`):
 * a bootstrap that registers tsx in the thread, then imports the .ts file, the workspace packages
 * resolving to their sources as in the main thread.
 */
export function threadEntry(name: "worker" | "checkpointer"): { filename: string | URL; eval?: boolean; execArgv?: string[] } {
  const here = import.meta.url;
  if (here.endsWith(".js")) return { filename: new URL(`./${name}.js`, here) };
  // tsx's ESM API (the `import` condition of `tsx/esm/api`), which registers its hooks for the thread.
  const tsx = pathToFileURL(join(dirname(createRequire(here).resolve("tsx/package.json")), "dist/esm/api/index.mjs")).href;
  const file = new URL(`./${name}.ts`, here).href;
  const code = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(file)}); });`;
  return { filename: code, eval: true, execArgv: ["--conditions=tocsin-src"] };
}
