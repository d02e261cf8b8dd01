import { unavailable } from "@tocsin/core";
import type { AccessEvent } from "./access-events.js";
import type { AuthEvent, EventSink } from "./event-bus.js";
import { EventHub } from "./event-hub.js";
import type { KeyEvent } from "./key-events.js";

/** An in-process cache of this replica that access events invalidate (TokenService's look-ups). */
export interface LocalCache {
  invalidate(event: AccessEvent): void;
  setCaching(on: boolean): void;
}

/**
 * Where the bus delivers this replica's events: the watch streams (the hub of the event's kind)
 * and this replica's own look-up cache. Down: every stream ends, new ones are refused and the
 * local cache is off, until up.
 */
export class WatchHubs implements EventSink {
  /** WatchIntegrationKeys. */
  readonly keys = new EventHub<KeyEvent>();
  /** WatchAccessChanges. */
  readonly access = new EventHub<AccessEvent>();

  constructor(private readonly local: LocalCache) {}

  deliver(event: AuthEvent): void {
    if ("access" in event) {
      this.local.invalidate(event.access);
      this.access.publish(event.access);
    } else this.keys.publish(event.keys);
  }

  down(): void {
    this.local.setCaching(false);
    const err = unavailable("EVENTS_DOWN", "auth-service is not receiving change events; watch again shortly", undefined, 1);
    this.keys.interrupt(err);
    this.access.interrupt(err);
  }

  up(): void {
    this.local.setCaching(true);
    this.keys.resume();
    this.access.resume();
  }

  close(): void {
    this.keys.close();
    this.access.close();
  }
}
