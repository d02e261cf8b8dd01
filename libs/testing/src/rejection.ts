import { AppError } from "@tocsin/core";

/** The AppError reason a promise rejects with (another error as its text), or undefined when it resolves. */
export async function rejectionReason(p: Promise<unknown>): Promise<string | undefined> {
  try {
    await p;
    return undefined;
  } catch (err) {
    return AppError.is(err) ? err.reason : String(err);
  }
}
