import { freePort } from "@tocsin/testing";
import { type ParsedMail, simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";

/**
 * A real SMTP server (nodemailer's smtp-server) on a free port, keeping every message it accepted,
 * parsed with mailparser. It can refuse chosen recipients with a 550, and be stopped and started
 * again on the same port (a mail server that is down for a while).
 */
export interface SmtpSink {
  url: string;
  port: number;
  messages: ParsedMail[];
  /** RCPT TO of these addresses is answered `550 5.1.1 mailbox unavailable`. */
  reject: Set<string>;
  /** Messages whose To is `address`. */
  to(address: string): ParsedMail[];
  start(): Promise<void>;
  stop(): Promise<void>;
}

export async function startSmtpSink(): Promise<SmtpSink> {
  const port = await freePort();
  const messages: ParsedMail[] = [];
  const reject = new Set<string>();
  let server: SMTPServer | undefined;
  const sink: SmtpSink = {
    url: `smtp://127.0.0.1:${port}`,
    port,
    messages,
    reject,
    to: (address) => messages.filter((m) => addressesOf(m).includes(address)),
    async start() {
      server = new SMTPServer({
        authOptional: true,
        disabledCommands: ["STARTTLS", "AUTH"],
        logger: false,
        closeTimeout: 200,
        onRcptTo(address, _session, callback) {
          if (reject.has(address.address)) {
            const err = new Error("mailbox unavailable") as Error & { responseCode: number };
            err.responseCode = 550;
            callback(err);
            return;
          }
          callback();
        },
        onData(stream, _session, callback) {
          simpleParser(stream).then(
            (mail) => {
              messages.push(mail);
              callback();
            },
            (err: Error) => callback(err),
          );
        },
      });
      const s = server;
      await new Promise<void>((resolve, reject) => {
        s.once("error", reject);
        s.listen(port, "127.0.0.1", () => resolve());
      });
    },
    async stop() {
      const s = server;
      server = undefined;
      if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
    },
  };
  await sink.start();
  return sink;
}

function addressesOf(mail: ParsedMail): string[] {
  const to = mail.to;
  const list = Array.isArray(to) ? to : to ? [to] : [];
  return list.flatMap((a) => a.value.map((v) => v.address ?? ""));
}
