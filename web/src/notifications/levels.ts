export type Level = "global" | "watch" | "participating" | "mention" | "disabled" | "custom";

/** The six levels, GitLab's names and one-line explanations, in GitLab's order. */
export const LEVELS: { value: Level; label: string; help: string }[] = [
  { value: "global", label: "Global", help: "Use your global notification setting." },
  { value: "watch", label: "Watch", help: "You will receive notifications for any activity." },
  {
    value: "participating",
    label: "Participate",
    help: "You will only receive notifications for threads you have participated in.",
  },
  {
    value: "mention",
    label: "On mention",
    help: "You will receive notifications only for comments in which you were @mentioned.",
  },
  { value: "disabled", label: "Disabled", help: "You will not get any notifications by e-mail." },
  { value: "custom", label: "Custom", help: "You will only receive notifications for the events you choose." },
];

/** The 18 e-mail events (spec section 6), in order; `new_epic` only where the API returns it. */
export const EVENTS: { name: string; label: string }[] = [
  { name: "new_note", label: "New note" },
  { name: "new_issue", label: "New issue" },
  { name: "reopen_issue", label: "Reopen issue" },
  { name: "close_issue", label: "Close issue" },
  { name: "reassign_issue", label: "Reassign issue" },
  { name: "issue_due", label: "Issue due" },
  { name: "new_merge_request", label: "New merge request" },
  { name: "push_to_merge_request", label: "Push to merge request" },
  { name: "reopen_merge_request", label: "Reopen merge request" },
  { name: "close_merge_request", label: "Close merge request" },
  { name: "reassign_merge_request", label: "Reassign merge request" },
  { name: "merge_merge_request", label: "Merge merge request" },
  { name: "failed_pipeline", label: "Failed pipeline" },
  { name: "fixed_pipeline", label: "Fixed pipeline" },
  { name: "success_pipeline", label: "Successful pipeline" },
  { name: "moved_project", label: "Moved project" },
  { name: "merge_when_pipeline_succeeds", label: "Merge when pipeline succeeds" },
  { name: "new_epic", label: "New epic" },
];

export const levelHelp = (level: string) => LEVELS.find((l) => l.value === level)?.help ?? "";
