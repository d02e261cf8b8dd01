import { Agent, request as httpRequest } from "node:http";

/**
 * Monitors as a chaos run sees them: each alert is posted until it gets a 202, with the same
 * `Idempotency-Key` on every attempt, and every answer on the way is recorded. What the contract
 * allows during a fault (PRODUCT.md sections 5 and 7): 202, 503 with `Retry-After`, or a
 * connection error. Anything else is a finding.
 */
export interface Answer {
  status: number | "connection error";
  retryAfter?: string;
  body?: string;
}

export interface ChaosLoad {
  /** Every answer of every attempt, in arrival order. */
  answers: Answer[];
  /** Alert numbers that got a 202. */
  accepted: Set<number>;
  /** Resolves when every alert got its 202 (or the load was stopped). */
  done: Promise<void>;
  /** Stops sending new attempts (those in flight finish). */
  stop(): void;
}

export interface LoadOptions {
  url: () => string;
  path: string;
  key: string;
  /** How many distinct alerts, and how many monitors post them at once. */
  alerts: number;
  concurrency: number;
  /** Tells each run apart (fingerprints and Idempotency-Keys). */
  run: string;
  /** Pause between attempts of one alert after a refusal (Retry-After is honoured up to this). */
  retryMs?: number;
  /** Alerts per post, as Alertmanager batches them (to the Prometheus endpoint); default one generic alert. */
  batch?: number;
}

const agent = new Agent({ keepAlive: true, maxSockets: 64 });

/** The alert of number `i`: its own fingerprint, so a count of 1 event per alert shows no repeat. */
export const chaosTitle = (run: string, i: number) => `chaos ${run} #${i}`;

function post(base: string, path: string, key: string, body: string, idempotencyKey: string): Promise<Answer> {
  return new Promise((resolve) => {
    const req = httpRequest(
      new URL(path, base),
      {
        method: "POST",
        agent,
        headers: {
          "content-type": "application/json",
          authorization: `Bearer ${key}`,
          "idempotency-key": idempotencyKey,
        },
        timeout: 15_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const retryAfter = res.headers["retry-after"];
          resolve({
            status: res.statusCode ?? 0,
            ...(typeof retryAfter === "string" ? { retryAfter } : {}),
            body: Buffer.concat(chunks).toString("utf8").slice(0, 200),
          });
        });
        res.on("error", () => resolve({ status: "connection error" }));
      },
    );
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.on("error", () => resolve({ status: "connection error" }));
    req.end(body);
  });
}

/** The body of attempt `i`: one alert, or (with `batch`) an Alertmanager post of `batch` alerts. */
function bodyOf(options: LoadOptions, i: number): string {
  if (!options.batch)
    return JSON.stringify({ title: chaosTitle(options.run, i), fingerprint: `${options.run}-${i}`, severity: "high" });
  const alerts = Array.from({ length: options.batch }, (_, k) => {
    const n = i * (options.batch as number) + k;
    return {
      status: "firing",
      labels: { alertname: "Chaos", instance: `${options.run}-${n}`, severity: "critical" },
      annotations: { title: chaosTitle(options.run, n) },
      startsAt: new Date().toISOString(),
    };
  });
  return JSON.stringify({
    version: "4",
    groupKey: `{}:{run="${options.run}"}`,
    status: "firing",
    receiver: "tocsin",
    groupLabels: {},
    commonLabels: {},
    commonAnnotations: {},
    externalURL: "http://alertmanager.example:9093",
    alerts,
  });
}

export function startLoad(options: LoadOptions): ChaosLoad {
  const answers: Answer[] = [];
  const accepted = new Set<number>();
  let stopped = false;
  let next = 0;
  const retryMs = options.retryMs ?? 100;
  const posts = Math.ceil(options.alerts / (options.batch ?? 1));
  const monitor = async () => {
    while (!stopped) {
      const i = next++;
      if (i >= posts) return;
      const body = bodyOf(options, i);
      while (!stopped) {
        const answer = await post(options.url(), options.path, options.key, body, `${options.run}-${i}`);
        answers.push(answer);
        if (answer.status === 202) {
          for (let k = 0; k < (options.batch ?? 1); k++) accepted.add(i * (options.batch ?? 1) + k);
          break;
        }
        const hinted = Number(answer.retryAfter) * 1000;
        await new Promise((r) => setTimeout(r, Number.isFinite(hinted) && hinted > 0 ? Math.min(hinted, retryMs) : retryMs));
      }
    }
  };
  const done = Promise.all(Array.from({ length: options.concurrency }, monitor)).then(() => undefined);
  return {
    answers,
    accepted,
    done,
    stop() {
      stopped = true;
    },
  };
}

/** Answers the contract does not allow during a fault: any other status, or a 503 without Retry-After. */
export function forbiddenAnswers(answers: Answer[]): Answer[] {
  return answers.filter((a) => {
    if (a.status === 202 || a.status === "connection error") return false;
    if (a.status === 503) return !a.retryAfter || !(Number(a.retryAfter) > 0);
    return true;
  });
}

/** Counts of each answer, for a failure message that shows what happened. */
export function tally(answers: Answer[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const a of answers) counts[String(a.status)] = (counts[String(a.status)] ?? 0) + 1;
  return counts;
}

/**
 * REST readers during a fault: GETs of `paths` one after another until stopped, every answer
 * recorded. What the contract allows (PRODUCT.md section 7): 200, 503 with Retry-After (a
 * dependency down), or a connection error.
 */
export function startReaders(base: () => string, token: string, paths: string[]) {
  const answers: Answer[] = [];
  let stopped = false;
  const loop = async () => {
    for (let i = 0; !stopped; i++) {
      const path = paths[i % paths.length] as string;
      try {
        const res = await fetch(`${base()}${path}`, { headers: { "PRIVATE-TOKEN": token }, signal: AbortSignal.timeout(15_000) });
        const retryAfter = res.headers.get("retry-after");
        answers.push({
          status: res.status,
          ...(retryAfter ? { retryAfter } : {}),
          body: `${path}: ${(await res.text()).slice(0, 120)}`,
        });
      } catch {
        answers.push({ status: "connection error" });
      }
      await new Promise((r) => setTimeout(r, 5));
    }
  };
  const done = Promise.all([loop(), loop()]);
  return {
    answers,
    async stop() {
      stopped = true;
      await done;
    },
  };
}

/** Reader answers the contract does not allow during a fault. */
export function forbiddenReads(answers: Answer[]): Answer[] {
  return answers.filter((a) => a.status !== 200 && forbiddenAnswers([a]).length > 0);
}
