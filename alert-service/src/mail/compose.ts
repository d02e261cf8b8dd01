import type { SendMailOptions } from "nodemailer";
import type { OutgoingMail } from "../domain/mail/ports.js";

const bracket = (id: string) => `<${id}>`;

/** nodemailer's message options for an OutgoingMail (both transports build the same message). */
export function toMailOptions(mail: OutgoingMail): SendMailOptions {
  return {
    messageId: bracket(mail.messageId),
    from: mail.from,
    to: mail.to,
    subject: mail.subject,
    text: mail.text,
    html: mail.html,
    ...(mail.inReplyTo ? { inReplyTo: bracket(mail.inReplyTo), references: [bracket(mail.inReplyTo)] } : {}),
    headers: mail.headers,
  };
}
