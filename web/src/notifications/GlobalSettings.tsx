import type { Email, NotificationSetting, SettingChange } from "./api";
import { LevelSelect } from "./LevelSelect";
import { NotificationEmail } from "./NotificationEmail";

interface Props {
  /** The user's primary e-mail. */
  primary: string;
  /** The user's e-mails (`GET /user/emails`); the confirmed ones can be chosen. */
  emails: Email[];
  /** The global setting, read by the page. */
  setting: NotificationSetting;
  /** The page's save of the global setting (`PUT /notification_settings`), answered by the saved setting. */
  onSave: (change: SettingChange) => Promise<NotificationSetting>;
  onSaved: (message: string) => void;
}

/** The global notification settings: the e-mail and the level (Custom opens the events), each saved on change. */
export function GlobalSettings({ primary, emails, setting, onSave, onSaved }: Props) {
  return (
    <>
      <NotificationEmail primary={primary} emails={emails} setting={setting} onSave={onSave} onSaved={onSaved} />
      <div className="field">
        <span id="global-level-label">Global notification level</span>
        <LevelSelect global label="Global notification level" setting={setting} onSave={onSave} onSaved={onSaved} />
      </div>
    </>
  );
}
