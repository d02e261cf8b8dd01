import { mkdir, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import MailComposer from "nodemailer/lib/mail-composer/index.js";
import type { MailTransport } from "../domain/mail/ports.js";
import { toMailOptions } from "./compose.js";

/**
 * The embedded default without SMTP_URL: each message becomes the RFC 5322 file
 * `<dir>/<message id>.eml` (written to a temporary name, then renamed, so a reader never sees
 * half a message).
 */
export function createOutboxTransport(dir: string): MailTransport {
  let ready: Promise<unknown> | undefined;
  return {
    async send(mail) {
      ready ??= mkdir(dir, { recursive: true });
      await ready;
      const raw = await new MailComposer(toMailOptions(mail)).compile().build();
      const file = join(dir, `${mail.messageId}.eml`);
      await writeFile(`${file}.tmp`, raw);
      await rename(`${file}.tmp`, file);
    },
    close() {},
  };
}
