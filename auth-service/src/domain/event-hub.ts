import { EventEmitter } from "node:events";

/** In-process fan-out of events to every open watch stream. */
export class EventHub<T> {
  private readonly emitter = new EventEmitter();
  private closed = false;

  constructor() {
    this.emitter.setMaxListeners(0);
  }

  publish(event: T): void {
    if (!this.closed) this.emitter.emit("event", event);
  }

  /** Returns an unsubscribe function. `onClose` runs when the hub closes (server stop). */
  subscribe(listener: (event: T) => void, onClose: () => void): () => void {
    if (this.closed) {
      onClose();
      return () => {};
    }
    this.emitter.on("event", listener);
    this.emitter.on("close", onClose);
    return () => {
      this.emitter.off("event", listener);
      this.emitter.off("close", onClose);
    };
  }

  subscriberCount(): number {
    return this.emitter.listenerCount("event");
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.emitter.emit("close");
    this.emitter.removeAllListeners();
  }
}
