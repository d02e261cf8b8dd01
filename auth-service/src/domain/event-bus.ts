import type { AccessEvent } from "./access-events.js";
import type { KeyEvent } from "./key-events.js";

/** One change announced to the watch streams of every replica. */
export type AuthEvent = { access: AccessEvent } | { keys: KeyEvent };

/** What a replica does with the events it receives from the bus (WatchHubs). */
export interface EventSink {
  /** An event, from this replica or another, in the bus's order. */
  deliver(event: AuthEvent): void;
  /** Events may be missed from now on (the subscription dropped): every watch stream must end. */
  down(): void;
  /** Events flow again: watch streams may be opened. */
  up(): void;
}

/**
 * Carries auth events to every replica of auth-service (port; adapters in src/events/): the
 * in-process bus for a single replica, Redis pub/sub with REDIS_URL. Each replica's watch
 * streams are fed only from what the bus delivers to its sink, its own events included, so
 * every replica sees every event once, in one order.
 */
export interface EventBus {
  /** Where this replica's events go; called once, before the first publish. */
  attach(sink: EventSink): void;
  /**
   * Resolves once the event has been delivered to this replica's sink and handed to every other
   * subscribed replica (or this replica's sink went down meanwhile, which ended its streams).
   * Never rejects: the change it announces is already stored.
   */
  publish(event: AuthEvent): Promise<void>;
}
