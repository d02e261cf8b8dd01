import { describe, expect, it } from "vitest";
import type { Alert } from "../alerts/model.js";
import { renderAlertMail, renderDigestMail } from "./message.js";

const alert: Alert = {
  id: 42,
  projectId: 7,
  iid: 3,
  integrationId: 1,
  title: "Disk <full>",
  description: "",
  severity: "high",
  status: "resolved",
  service: "db",
  monitoringTool: "",
  hosts: ["db-1", "db-2"],
  events: 4,
  fingerprint: "f",
  startedAt: new Date("2026-11-21T10:00:00Z"),
  endedAt: new Date("2026-11-21T11:00:00Z"),
  environmentName: "",
  incidentIid: 0,
  payload: {},
  createdAt: new Date("2026-11-21T10:00:00Z"),
  updatedAt: new Date("2026-11-21T11:00:00Z"),
};
const settings = { from: "Tocsin <tocsin@alerts.example.com>", externalUrl: "https://alerts.example.com" };
const project = { id: 7, fullPath: "grp/app" };
const to = { userId: 9, email: "nine@example.com" };

describe("alert e-mail rendering", () => {
  it("triggered: subject, fields, link, headers; HTML escaped", () => {
    const mail = renderAlertMail(settings, project, { ...alert, status: "triggered", endedAt: undefined }, "triggered", to);
    expect(mail.subject).toBe("grp/app | Alert: Disk <full>");
    expect(mail.messageId).toBe("tocsin.alert-42.triggered.user-9@alerts.example.com");
    expect(mail.inReplyTo).toBeUndefined();
    expect(mail.headers).toEqual({
      "List-Id": "grp/app <grp.app.7.tocsin>",
      "X-Tocsin-Project": "grp/app",
      "X-Tocsin-Alert-IID": "3",
      "Auto-Submitted": "auto-generated",
    });
    expect(mail.text).toContain("Hosts: db-1, db-2");
    expect(mail.text).not.toContain("Monitoring tool");
    expect(mail.text).toContain("https://alerts.example.com/grp/app/-/alert_management/3/details");
    expect(mail.html).toContain("Disk &lt;full&gt;");
    expect(mail.html).not.toContain("<full>");
  });

  it("resolved: replies to the triggered mail of the same recipient and shows the end time", () => {
    const mail = renderAlertMail(settings, project, alert, "resolved", to);
    expect(mail.subject).toBe("grp/app | Alert resolved: Disk <full>");
    expect(mail.inReplyTo).toBe("tocsin.alert-42.triggered.user-9@alerts.example.com");
    expect(mail.text).toContain("End time: 2026-11-21T11:00:00.000Z");
  });

  it("digest: `<path> | N more alerts`, listing each", () => {
    const mail = renderDigestMail(
      settings,
      project,
      1000,
      [
        { alert, transition: "triggered" },
        { alert: { ...alert, iid: 4, title: "Other" }, transition: "resolved" },
      ],
      to,
    );
    expect(mail.subject).toBe("grp/app | 2 more alerts");
    expect(mail.text).toContain("Alert: Disk <full>");
    expect(mail.text).toContain("Resolved: Other");
    expect(mail.text).toContain("/grp/app/-/alert_management/4/details");
  });
});
