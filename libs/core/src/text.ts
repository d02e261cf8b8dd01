/** True when `value` holds a control character (Unicode category Cc: NUL, U+0001–U+001F, DEL, C1). */
export function hasControlCharacter(value: string): boolean {
  return /\p{Cc}/u.test(value);
}
