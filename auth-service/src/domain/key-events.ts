import { EventEmitter } from "node:events";

/** Something ResolveIntegrationEndpoint answers may have changed. */
export interface KeyEvent {
  /** 0 with `all`. */
  projectId: number;
  projectFullPath: string;
  /** Every cached answer may be stale (e.g. after a plan change). */
  all: boolean;
}

/** In-process fan-out of key events to every WatchIntegrationKeys stream. */
export class KeyEventHub {
  private readonly emitter = new EventEmitter();
  private closed = false;

  constructor() {
    this.emitter.setMaxListeners(0);
  }

  publish(event: KeyEvent): void {
    if (!this.closed) this.emitter.emit("event", event);
  }

  /** Returns an unsubscribe function. `onClose` runs when the hub closes (server stop). */
  subscribe(listener: (event: KeyEvent) => void, onClose: () => void): () => void {
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
