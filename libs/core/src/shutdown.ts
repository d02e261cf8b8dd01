import type { Logger } from "pino";

export type ShutdownHook = () => Promise<void> | void;

/**
 * Runs `hooks` in order on SIGINT/SIGTERM, each bounded by `timeoutMs`, then exits. A second
 * signal exits at once. A process started with an IPC channel (`npm start`'s supervisor) also
 * stops when that channel closes: the supervisor died, however it died (SIGKILL included), and a
 * process it started must not live on holding its port.
 */
export function onShutdown(logger: Logger, hooks: ShutdownHook[], timeoutMs = 10_000): void {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) process.exit(1);
    stopping = true;
    logger.info({ signal }, "shutting down");
    for (const hook of hooks) {
      try {
        await withTimeout(Promise.resolve(hook()), timeoutMs);
      } catch (err) {
        logger.warn({ err }, "shutdown step failed");
      }
    }
    logger.info("stopped");
    process.exit(0);
  };
  process.once("SIGINT", (s) => void stop(s));
  process.once("SIGTERM", (s) => void stop(s));
  if (process.send !== undefined) {
    // Started with an IPC channel: a supervisor that died before we got here is gone already.
    if (process.connected) process.once("disconnect", () => void stop("disconnect"));
    else void stop("disconnect");
  }
}

export function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
