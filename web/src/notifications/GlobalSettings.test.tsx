// @vitest-environment jsdom
import { cleanup, render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { useState } from "react";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { ApiError } from "../api/client";
import type { Email, NotificationSetting, SettingChange } from "./api";
import { GlobalSettings } from "./GlobalSettings";

const EMAILS: Email[] = [
  { id: 1, email: "maria@work.example", confirmed_at: "2026-11-01T00:00:00.000Z" },
  { id: 2, email: "maria@unconfirmed.example", confirmed_at: null },
];
const REFUSED = "notification_email must be an email you have verified";

/**
 * The page's part, as the page plays it: the setting it read, and a save answered with the saved
 * setting (or the API's refusal). `sent` records every change, the request payload.
 */
function renderSettings(initial: NotificationSetting, refused = "") {
  const sent: SettingChange[] = [];
  const onSaved = vi.fn();
  function Page() {
    const [setting, setSetting] = useState(initial);
    const onSave = async (change: SettingChange) => {
      sent.push(change);
      if (refused && change.notification_email === refused) throw new ApiError(400, REFUSED, { message: REFUSED });
      const { level, notification_email, ...events } = change;
      const saved: NotificationSetting = {
        ...setting,
        ...(level ? { level: String(level) } : {}),
        ...(notification_email ? { notification_email: String(notification_email) } : {}),
        ...(level === "custom"
          ? { events: { new_note: false, new_issue: false, ...setting.events, ...events } as Record<string, boolean> }
          : {}),
      };
      setSetting(saved);
      return saved;
    };
    return <GlobalSettings primary="maria@example.com" emails={EMAILS} setting={setting} onSave={onSave} onSaved={onSaved} />;
  }
  render(<Page />);
  return { user: userEvent.setup(), sent, onSaved };
}

beforeAll(() => {
  // jsdom has <dialog> but not its modal API; the browser tests cover the real one.
  HTMLDialogElement.prototype.showModal ??= function (this: HTMLDialogElement) {
    this.setAttribute("open", "");
  };
});
afterEach(cleanup);

describe("GlobalSettings (notification settings)", () => {
  it("offers the primary and the confirmed e-mails, and saves the chosen one at once", async () => {
    const { user, sent, onSaved } = renderSettings({ level: "participating", notification_email: "maria@example.com" });
    const email = screen.getByLabelText("Notification email");
    const options = within(email)
      .getAllByRole("option")
      .map((o) => o.textContent);
    expect(options).toEqual(["maria@example.com", "maria@work.example"]);
    expect(email.getAttribute("aria-describedby")).toBeTruthy();
    expect(document.getElementById(email.getAttribute("aria-describedby") ?? "")?.textContent).toBe(
      "Only verified e-mail addresses can be chosen. Alert e-mails go to this address.",
    );

    await user.selectOptions(email, "maria@work.example");
    expect(sent).toEqual([{ notification_email: "maria@work.example" }]);
    await vi.waitFor(() =>
      expect(onSaved).toHaveBeenCalledWith("Notification e-mail: maria@work.example. Notification settings saved."),
    );
    expect(email).toHaveProperty("value", "maria@work.example");
  });

  it("shows the API's refusal under the e-mail field, wired to it", async () => {
    // The address was unconfirmed elsewhere after the page read the e-mails: the API refuses it.
    const { user, sent, onSaved } = renderSettings(
      { level: "participating", notification_email: "maria@example.com" },
      "maria@work.example",
    );
    const email = screen.getByLabelText("Notification email");
    await user.selectOptions(email, "maria@work.example");

    expect(sent).toEqual([{ notification_email: "maria@work.example" }]);
    const error = await screen.findByRole("alert");
    expect(error.textContent).toBe(REFUSED);
    expect(email.getAttribute("aria-invalid")).toBe("true");
    expect(email.getAttribute("aria-describedby")?.split(" ")).toContain(error.id);
    expect(onSaved).not.toHaveBeenCalled();
    // The select is back on the saved address.
    expect(email).toHaveProperty("value", "maria@example.com");
  });

  it("saves the level on change, explains it, and opens the custom events for Custom", async () => {
    const { user, sent, onSaved } = renderSettings({ level: "participating", notification_email: "maria@example.com" });
    const level = screen.getByLabelText("Global notification level");
    // `global` means something only for a group or project.
    expect(within(level).queryByRole("option", { name: "Global" })).toBeNull();

    await user.selectOptions(level, "Watch");
    expect(sent).toEqual([{ level: "watch" }]);
    await screen.findByText("You will receive notifications for any activity.");
    expect(onSaved).toHaveBeenLastCalledWith("Global notification level: Watch. Notification settings saved.");

    await user.selectOptions(level, "Custom");
    expect(sent.at(-1)).toEqual({ level: "custom" });
    const dialog = await screen.findByRole("dialog", { name: "Custom notification events: Global notification level" });
    await user.click(within(dialog).getByRole("checkbox", { name: "New note" }));
    expect(sent.at(-1)).toEqual({ level: "custom", new_note: true });
    await vi.waitFor(() => expect(onSaved).toHaveBeenLastCalledWith("New note on: notification settings saved."));
    expect(within(dialog).getByRole("checkbox", { name: "New note" })).toHaveProperty("checked", true);
    // new_epic only where the API returns it.
    expect(within(dialog).queryByRole("checkbox", { name: "New epic" })).toBeNull();

    await user.click(within(dialog).getByRole("button", { name: "Done" }));
    expect(screen.queryByRole("dialog")).toBeNull();
    expect(screen.getByRole("button", { name: "Custom events: Global notification level" })).toBeTruthy();
  });
});
