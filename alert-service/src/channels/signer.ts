import { Webhook } from "standardwebhooks";
import type { Sign } from "../domain/channels/delivery.js";

/** Standard Webhooks signatures (`v1,<base64 HMAC-SHA256>` over `<id>.<timestamp>.<body>`) with the spec's own library. */
export const standardWebhooksSign: Sign = (secret, id, at, body) => new Webhook(secret).sign(id, at, body);
