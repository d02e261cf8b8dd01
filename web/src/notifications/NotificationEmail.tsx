import { Field } from "../ui/Field";
import { useSubmit } from "../ui/submit";
import type { Email, NotificationSetting, SettingChange } from "./api";

interface Props {
  /** The user's primary e-mail (verified by definition). */
  primary: string;
  emails: Email[];
  setting: NotificationSetting;
  onSave: (change: SettingChange) => Promise<NotificationSetting>;
  onSaved: (message: string) => void;
}

/** The notification e-mail: a select of the user's verified e-mails, saved on change. */
export function NotificationEmail({ primary, emails, setting, onSave, onSaved }: Props) {
  const save = useSubmit(onSave);
  const verified = new Set<string>(primary ? [primary] : []);
  for (const e of emails) if (e.confirmed_at) verified.add(e.email);
  const current = save.pending?.notification_email ? String(save.pending.notification_email) : (setting.notification_email ?? "");
  if (current) verified.add(current);
  return (
    <Field
      label="Notification email"
      hint="Only verified e-mail addresses can be chosen. Alert e-mails go to this address."
      error={save.error}
    >
      {(control) => (
        <select
          {...control}
          value={current}
          disabled={save.isPending}
          onChange={(e) =>
            save.submit({ notification_email: e.target.value }, (s) =>
              onSaved(`Notification e-mail: ${s.notification_email}. Notification settings saved.`),
            )
          }
        >
          {[...verified].map((e) => (
            <option key={e} value={e}>
              {e}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}
