import { EventEmitter } from "node:events";
import type { AppError } from "@tocsin/core";

/**
 * In-process fan-out of events to the open watch streams of this replica. While the events may
 * be incomplete (the replica's subscription to the other replicas' events is down) the hub is
 * interrupted: its subscriptions end with that error and new ones are refused, so that the
 * caches fed by them cache nothing until `resume()`.
 */
export class EventHub<T> {
  private readonly emitter = new EventEmitter();
  private closed = false;
  private interruption: AppError | undefined;

  constructor() {
    this.emitter.setMaxListeners(0);
  }

  publish(event: T): void {
    if (!this.closed && !this.interruption) this.emitter.emit("event", event);
  }

  /**
   * Returns an unsubscribe function. `onEnd` runs when the hub closes (server stop: no error) or
   * is interrupted (with the error); at once if it already is.
   */
  subscribe(listener: (event: T) => void, onEnd: (err?: AppError) => void): () => void {
    if (this.closed || this.interruption) {
      onEnd(this.interruption);
      return () => {};
    }
    this.emitter.on("event", listener);
    this.emitter.on("end", onEnd);
    return () => {
      this.emitter.off("event", listener);
      this.emitter.off("end", onEnd);
    };
  }

  /** Ends every subscription with `err` and refuses new ones until `resume()`. */
  interrupt(err: AppError): void {
    if (this.closed || this.interruption) return;
    this.interruption = err;
    this.emitter.emit("end", err);
    this.emitter.removeAllListeners();
  }

  resume(): void {
    this.interruption = undefined;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.emitter.emit("end");
    this.emitter.removeAllListeners();
  }
}
