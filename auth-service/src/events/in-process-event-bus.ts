import type { AuthEvent, EventBus, EventSink } from "../domain/event-bus.js";

/** One replica (no REDIS_URL): an event goes straight to this process's watch streams. */
export class InProcessEventBus implements EventBus {
  private sink: EventSink | undefined;

  attach(sink: EventSink): void {
    this.sink = sink;
  }

  async publish(event: AuthEvent): Promise<void> {
    this.sink?.deliver(event);
  }
}
