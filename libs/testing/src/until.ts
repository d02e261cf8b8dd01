/**
 * Polls `check` until it returns a truthy value, which it resolves to; throws after `timeoutMs`.
 * Tests wait on conditions with this, never on fixed sleeps.
 */
export async function until<T>(
  check: () => Promise<T | false | undefined> | T | false | undefined,
  timeoutMs = 30_000,
  intervalMs = 10,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
