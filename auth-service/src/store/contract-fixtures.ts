import { AppError } from "@tocsin/core";

/** What the AuthStore contract's cases share: one clock and how a refusal reads. */
export const at = new Date("2026-11-21T10:00:00.123Z");
export const later = (ms: number) => new Date(at.getTime() + ms);

export async function reasonOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    if (err instanceof AppError) return `${err.code}:${err.reason}`;
    throw err;
  }
  return "no error";
}
