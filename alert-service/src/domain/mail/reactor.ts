import type { AlertEvent, Reactor } from "../alerts/reactions.js";
import type { ClaimedMail, Notifier } from "./pipeline.js";
import type { Transition } from "./ports.js";

/**
 * The e-mail transition of an event, if it mails (PRODUCT.md section 9): a new triggered alert
 * and a recovery payload that resolves an open alert — both made by the processing job. A user's
 * status change, auto-resolve and incidents send no e-mail.
 */
function transitionOf(event: AlertEvent): Transition | undefined {
  // The last silence over a still-triggered alert ended (issue 24): the trigger's mail goes out now.
  if (event.kind === "alert.unsilenced") return "triggered";
  if (event.by !== "processing") return undefined;
  if (event.kind === "alert.triggered") return "triggered";
  if (event.kind === "alert.resolved") return "resolved";
  return undefined;
}

/**
 * Alert e-mails as a reactor: for an event that mails and a project with `send_email` on, claims
 * the notification's storm-control slot (`Notifier.claim`, keyed by alert and transition); the
 * claims' notify or digest jobs are enqueued together after the change committed.
 */
export function emailReactor(notifier: Notifier): Reactor<ClaimedMail> {
  return {
    name: "email",
    async claim(event, context) {
      const transition = transitionOf(event);
      if (!transition || !(await context.settings()).sendEmail) return undefined;
      return notifier.claim({ requestId: event.requestId, projectId: event.projectId, alertId: event.alertId, transition });
    },
    enqueue: (claims) => notifier.enqueue(claims),
  };
}
