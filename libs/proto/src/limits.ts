/**
 * Limits that are part of an RPC's contract (its comment in `proto/` says so), shared by the
 * service that enforces one and the clients that split their calls to stay within it.
 */

/** `settings.v1.SettingsService.ListNotificationEmails`: user ids one call may ask for (more: TOO_MANY_USERS). */
export const MAX_NOTIFICATION_EMAIL_USERS = 1000;
