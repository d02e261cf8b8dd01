import { createTransport } from "nodemailer";
import { MailRejectedError, type MailTransport } from "../domain/mail/ports.js";
import { toMailOptions } from "./compose.js";

export interface SmtpTransportOptions {
  /** `smtp://user:pass@host:587` (STARTTLS when offered) or `smtps://...`. */
  url: string;
  /** Connections to the server at most (default 16, one per mail-queue lane). */
  maxConnections?: number;
}

/** Pool and timeouts, unless SMTP_URL's query sets them (`?maxConnections=4`, as nodemailer reads it). */
const DEFAULTS = { pool: "true", connectionTimeout: "10000", greetingTimeout: "10000", socketTimeout: "60000" };

/**
 * The transport's options as one URL: nodemailer reads an options object's `url` alone and drops
 * every other key beside it (an earlier version passed `{url, pool: true, …}` and so opened a new
 * connection, with the server's greeting delay, for every message), so the pool and the timeouts
 * travel in the URL's query, where nodemailer reads them.
 */
export function transportUrl(url: string, maxConnections = 16): string {
  const u = new URL(url);
  for (const [key, value] of Object.entries({ ...DEFAULTS, maxConnections: String(maxConnections) }))
    if (!u.searchParams.has(key)) u.searchParams.set(key, value);
  return u.toString();
}

/**
 * nodemailer's pooled SMTP transport. A 5xx answer (to MAIL FROM, RCPT TO or DATA) becomes
 * MailRejectedError; connection failures, timeouts and 4xx answers stay ordinary errors (retried).
 */
export function createSmtpTransport(opts: SmtpTransportOptions): MailTransport {
  const transport = createTransport(transportUrl(opts.url, opts.maxConnections));
  return {
    async send(mail) {
      try {
        await transport.sendMail(toMailOptions(mail));
      } catch (err) {
        const code = (err as { responseCode?: unknown }).responseCode;
        if (typeof code === "number" && code >= 500 && code < 600) throw new MailRejectedError((err as Error).message, code);
        throw err;
      }
    },
    close: () => transport.close(),
  };
}
