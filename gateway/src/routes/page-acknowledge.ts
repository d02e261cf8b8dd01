import { paramMissing } from "@tocsin/core";
import express, { type Request, type Response, Router } from "express";
import type { GatewayDeps } from "../deps.js";
import { anonymousContext } from "../http/context.js";
import { toHttpError } from "../http-errors.js";
import { BODY_LIMIT } from "../middleware/body-parsers.js";

const PATH = "/-/alerts/acknowledge";

/** The console's page headers (section 8): no script, no inline style, forms post to this origin only. */
const PAGE_HEADERS = {
  "Content-Security-Policy": "default-src 'self'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'",
  "X-Frame-Options": "DENY",
  "Referrer-Policy": "no-referrer",
  "Cache-Control": "no-store",
} as const;

const escapeHtml = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");

function page(title: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Tocsin</title></head>
<body><main>
<h1>${escapeHtml(title)}</h1>
${body}
</main></body></html>
`;
}

/** The token of a POST: a JSON body `{token}` or the confirmation page's form. */
function tokenOf(req: Request): string {
  const body = (req.body && typeof req.body === "object" ? req.body : {}) as Record<string, unknown>;
  const token = body.token;
  if (typeof token !== "string" || token === "") throw paramMissing("token");
  return token;
}

const fromForm = (req: Request) => req.is("application/x-www-form-urlencoded") === "application/x-www-form-urlencoded";

/**
 * The acknowledge link of a page e-mail (PRODUCT.md section 11), usable without signing in (the
 * token is the credential). `GET` answers a plain server-rendered confirmation page whose one
 * button posts the token — it changes nothing, so a mail scanner that follows links acknowledges
 * nothing. `POST` (JSON `{token}`, or the page's form) acknowledges through alert-service: JSON
 * answers `{status, changed, alert_iid, project}`, the form an HTML page; refusals are 401 (tampered)
 * or 410 (expired, user blocked or gone) with a message.
 */
export function pageAcknowledgeRoutes(deps: GatewayDeps): Router {
  const router = Router();

  router.get(PATH, (req, res) => {
    const token = typeof req.query.token === "string" ? req.query.token : "";
    const body = token
      ? `<p>You were paged about an alert. Acknowledge it to stop the escalation: nobody else is paged for it while it stays acknowledged.</p>
<form method="post" action="${PATH}">
<input type="hidden" name="token" value="${escapeHtml(token)}">
<button type="submit">Acknowledge alert</button>
</form>`
      : "<p>This acknowledge link has no token. Open the link of the page e-mail as it was sent.</p>";
    res
      .status(token ? 200 : 400)
      .set(PAGE_HEADERS)
      .type("html")
      .send(page("Acknowledge alert", body));
  });

  router.post(
    PATH,
    express.json({ limit: BODY_LIMIT, strict: true }),
    express.urlencoded({ limit: BODY_LIMIT, extended: false }),
    async (req: Request, res: Response) => {
      const html = fromForm(req);
      try {
        const out = await deps.alert.acknowledgeAlertFromPage({ token: tokenOf(req) }, anonymousContext(res));
        if (!html) {
          res.set("Cache-Control", "no-store").json({
            status: out.status,
            changed: out.changed,
            alert_iid: out.alertIid,
            project: out.projectPath,
            username: out.username,
          });
          return;
        }
        const link = `/${out.projectPath}/-/alert_management/${out.alertIid}/details`;
        const said =
          out.status === "acknowledged"
            ? `Alert #${out.alertIid} (${out.title}) is acknowledged.`
            : `Alert #${out.alertIid} (${out.title}) is ${out.status}: nothing to acknowledge.`;
        res
          .status(200)
          .set(PAGE_HEADERS)
          .type("html")
          .send(
            page("Alert acknowledged", `<p>${escapeHtml(said)}</p>\n<p><a href="${escapeHtml(link)}">Open the alert</a></p>`),
          );
      } catch (err) {
        if (!html) throw err;
        const answer = toHttpError(err);
        if (answer.unexpected) throw err;
        const message = "message" in answer.body ? String(answer.body.message) : answer.body.error;
        res
          .status(answer.status)
          .set(PAGE_HEADERS)
          .type("html")
          .send(page("Cannot acknowledge", `<p>${escapeHtml(message)}</p>`));
      }
    },
  );
  return router;
}
