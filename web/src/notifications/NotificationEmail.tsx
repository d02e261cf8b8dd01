import { useId } from "react";
import { useCurrentUser } from "../session/api";
import { ErrorMessage } from "../ui/ErrorMessage";
import { useEmails, useNotificationSetting, useSaveNotificationSetting } from "./api";

const GLOBAL = { kind: "global" } as const;

/** The notification e-mail: a select of the user's verified e-mails, saved on change. */
export function NotificationEmail({ onSaved }: { onSaved: (message: string) => void }) {
  const id = useId();
  const user = useCurrentUser();
  const emails = useEmails();
  const setting = useNotificationSetting(GLOBAL);
  const save = useSaveNotificationSetting(GLOBAL);
  if (emails.isError) return <ErrorMessage error={emails.error} />;
  const verified = new Set<string>(user.email ? [user.email] : []);
  for (const e of emails.data ?? []) if (e.confirmed_at) verified.add(e.email);
  const current = setting.data?.notification_email ?? "";
  if (current) verified.add(current);
  return (
    <div className="field">
      <label htmlFor={id}>Notification email</label>
      <select
        id={id}
        value={current}
        disabled={!setting.data || emails.isPending || save.isPending}
        onChange={(e) =>
          save.mutate(
            { notification_email: e.target.value },
            { onSuccess: (s) => onSaved(`Notification e-mail: ${s.notification_email}. Notification settings saved.`) },
          )
        }
      >
        {[...verified].map((e) => (
          <option key={e} value={e}>
            {e}
          </option>
        ))}
      </select>
      <span className="muted help">Only verified e-mail addresses can be chosen. Alert e-mails go to this address.</span>
      {save.isError && <ErrorMessage error={save.error} />}
    </div>
  );
}
