import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";
import { afterEach, describe, expect, it } from "vitest";
import type { OutgoingMail } from "../domain/mail/ports.js";
import { createSmtpTransport, transportUrl } from "./smtp-transport.js";

const mail = (n: number): OutgoingMail => ({
  messageId: `m${n}@tocsin.test`,
  from: "Tocsin <tocsin@tocsin.test>",
  to: "oncall@example.com",
  subject: `message ${n}`,
  text: "body",
  html: "<p>body</p>",
  headers: {},
});

describe("SMTP transport (nodemailer against a real smtp-server)", () => {
  const servers: SMTPServer[] = [];
  afterEach(async () => {
    for (const s of servers.splice(0)) await new Promise<void>((resolve) => s.close(() => resolve()));
  });

  /** An smtp-server counting the connections it accepted and the messages it took. */
  const start = async () => {
    const seen = { connections: 0, messages: 0 };
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ["STARTTLS", "AUTH"],
      logger: false,
      onConnect(_session, callback) {
        seen.connections++;
        callback();
      },
      onData(stream, _session, callback) {
        stream.resume();
        stream.on("end", () => {
          seen.messages++;
          callback();
        });
      },
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return { url: `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`, seen };
  };

  it("keeps its connection for the next message (a pool), not one connection per message", async () => {
    const server = await start();
    const transport = createSmtpTransport({ url: server.url });
    try {
      for (let n = 0; n < 5; n++) await transport.send(mail(n));
    } finally {
      transport.close();
    }
    expect(server.seen).toEqual({ connections: 1, messages: 5 });
  });

  it("carries the pool and timeouts in the URL's query, leaving what SMTP_URL sets", () => {
    const url = new URL(transportUrl("smtp://user:p%40ss@mail.example.com:587/?maxConnections=4&socketTimeout=5000"));
    expect(Object.fromEntries(url.searchParams)).toEqual({
      pool: "true",
      maxConnections: "4",
      connectionTimeout: "10000",
      greetingTimeout: "10000",
      socketTimeout: "5000",
    });
    expect([url.protocol, url.username, url.password, url.host]).toEqual(["smtp:", "user", "p%40ss", "mail.example.com:587"]);
  });
});
