import { createTransport } from "nodemailer";
import { MailRejectedError, type MailTransport } from "../domain/mail/ports.js";
import { toMailOptions } from "./compose.js";

export interface SmtpTransportOptions {
  /** `smtp://user:pass@host:587` (STARTTLS when offered) or `smtps://...`. */
  url: string;
  /** Connections to the server at most (default 16, one per mail-queue lane). */
  maxConnections?: number;
}

/**
 * nodemailer's pooled SMTP transport. A 5xx answer (to MAIL FROM, RCPT TO or DATA) becomes
 * MailRejectedError; connection failures, timeouts and 4xx answers stay ordinary errors (retried).
 */
export function createSmtpTransport(opts: SmtpTransportOptions): MailTransport {
  const transport = createTransport({
    url: opts.url,
    pool: true,
    maxConnections: opts.maxConnections ?? 16,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 60_000,
  } as Parameters<typeof createTransport>[0]);
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
