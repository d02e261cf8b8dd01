/** The request parameters of the alert use-cases, checked the same way by queries and commands. */
import { AppError } from "@tocsin/core";

export const valueInvalid = (param: string) =>
  new AppError("INVALID_ARGUMENT", "PARAM_VALUE_INVALID", `${param} does not have a valid value`);

export function oneOf<T extends string>(param: string, value: string | undefined, allowed: readonly T[]): T | undefined {
  if (!value) return undefined;
  if (!(allowed as readonly string[]).includes(value)) throw valueInvalid(param);
  return value as T;
}
