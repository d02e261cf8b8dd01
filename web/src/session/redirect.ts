/** Where to go after signing in: only a path on this site (never `//host` or a full URL). */
export function safeReturnPath(value: string | null): string {
  if (!value?.startsWith("/") || value.startsWith("//") || value.startsWith("/\\")) return "/";
  if (value.startsWith("/users/sign_in")) return "/";
  return value;
}

export function signInPath(returnTo: string): string {
  return returnTo === "/" ? "/users/sign_in" : `/users/sign_in?redirect_to=${encodeURIComponent(returnTo)}`;
}
