import { EventHub } from "./event-hub.js";

/** Something ResolveIntegrationEndpoint answers may have changed. */
export interface KeyEvent {
  /** 0 with `all`. */
  projectId: number;
  projectFullPath: string;
  /** Every cached answer may be stale (e.g. after a plan change). */
  all: boolean;
}

/** In-process fan-out of key events to every WatchIntegrationKeys stream. */
export class KeyEventHub extends EventHub<KeyEvent> {}
