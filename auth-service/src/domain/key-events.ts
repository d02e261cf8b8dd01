import type { EventBus } from "./event-bus.js";

/** Something ResolveIntegrationEndpoint answers may have changed. */
export interface KeyEvent {
  /** 0 with `all`. */
  projectId: number;
  projectFullPath: string;
  /** Every cached answer may be stale (e.g. after a plan change). */
  all: boolean;
}

/** Announces integration key changes to every WatchIntegrationKeys stream of every replica. */
export class KeyEvents {
  constructor(private readonly bus: EventBus) {}

  projectChanged(projectId: number, projectFullPath: string): Promise<void> {
    return this.bus.publish({ keys: { projectId, projectFullPath, all: false } });
  }

  everything(): Promise<void> {
    return this.bus.publish({ keys: { projectId: 0, projectFullPath: "", all: true } });
  }
}
