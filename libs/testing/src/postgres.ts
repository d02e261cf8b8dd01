import { execFileSync, spawnSync } from "node:child_process";

/** A PostgreSQL database of one test, reached through `psql`. */
export interface PostgresDatabase {
  url: string;
  /** Runs `query` (psql `-tA`: rows as lines, columns joined by `|`) and returns its output. */
  sql(query: string): string;
  /** Runs a psql script file with `-v name=value` variables. */
  file(path: string, vars?: Record<string, string>): string;
  drop(): void;
}

const psql = (args: string[]) =>
  execFileSync("psql", ["-qtA", "-v", "ON_ERROR_STOP=1", ...args], { encoding: "utf8", stdio: "pipe" });

/**
 * The PostgreSQL server of the suite `suite`: `POSTGRES_URL_TEST` (postgres://user@host:port/),
 * else the machine's own on 127.0.0.1:5432 as `postgres`, reached with `psql`. None is never a
 * silent pass: under CI it fails the run; elsewhere it says the suite is SKIPPED and the caller
 * skips it (`describe.skipIf(!postgresFor(…))`).
 */
export function postgresFor(suite: string): string | undefined {
  const server = process.env.POSTGRES_URL_TEST ?? "postgres://postgres@127.0.0.1:5432/";
  const answers = spawnSync("psql", [`${server.replace(/\/[^/]*$/, "/")}postgres`, "-qtAc", "SELECT 1"], { encoding: "utf8" });
  if (answers.status === 0 && answers.stdout.trim() === "1") return server;
  if (process.env.CI) throw new Error(`${suite}: CI requires PostgreSQL at ${server} and psql`);
  console.warn(`[${suite}] no PostgreSQL at ${server} (or no psql): SKIPPED`);
  return undefined;
}

/** A fresh database on `server`, named `prefix` and a random suffix. */
export function freshPostgresDatabase(server: string, prefix: string): PostgresDatabase {
  const base = server.replace(/\/[^/]*$/, "/");
  const name = `${prefix}_${Math.random().toString(36).slice(2, 10)}`;
  psql([`${base}postgres`, "-c", `CREATE DATABASE ${name}`]);
  const url = `${base}${name}`;
  return {
    url,
    sql: (query) => psql([url, "-c", query]).trim(),
    file: (path, vars = {}) => psql([url, ...Object.entries(vars).flatMap(([k, v]) => ["-v", `${k}=${v}`]), "-f", path]),
    drop: () => {
      psql([`${base}postgres`, "-c", `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`]);
    },
  };
}
