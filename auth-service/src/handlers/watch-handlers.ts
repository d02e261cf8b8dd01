import type { ServerCallContext, ServerStream, ServiceHandlers } from "@tocsin/grpc";
import type { authV1 } from "@tocsin/proto";
import type { EventHub } from "../domain/event-hub.js";
import type { UseCases } from "./use-cases.js";

type Def = typeof authV1.AuthServiceService;

/**
 * Writes every event of `hub` to `stream` until the caller cancels or the hub closes (then the
 * stream ends). `first` is written once the subscription is in place: anything the subscriber
 * cached before may be stale.
 */
function pipeHub<T, M>(hub: EventHub<T>, toMessage: (event: T) => M, first: M, ctx: ServerCallContext, stream: ServerStream<M>) {
  return new Promise<void>((resolve) => {
    let done = false;
    let unsubscribe = () => {};
    const finish = (end: boolean) => {
      if (done) return;
      done = true;
      unsubscribe();
      if (end) stream.end();
      resolve();
    };
    unsubscribe = hub.subscribe(
      (event) => stream.write(toMessage(event)),
      () => finish(true),
    );
    stream.write(first);
    stream.onCancel(() => finish(false));
    if (ctx.cancelled()) finish(false);
  });
}

/** The two change streams: integration keys (webhook endpoint caches) and access (principal and visibility caches). */
export function watchHandlers(u: UseCases): Pick<ServiceHandlers<Def>, "watchIntegrationKeys" | "watchAccessChanges"> {
  return {
    watchIntegrationKeys: (_req, ctx, stream) =>
      pipeHub(u.hub, (event) => ({ ...event }), { projectId: 0, projectFullPath: "", all: true }, ctx, stream),
    watchAccessChanges: (_req, ctx, stream) =>
      pipeHub(
        u.access,
        (event) => ({
          revokedTokenIds: [...event.revokedTokenIds],
          userIds: [...event.userIds],
          all: event.all,
          endedSessionIds: [...(event.endedSessionIds ?? [])],
        }),
        { revokedTokenIds: [], userIds: [], all: true, endedSessionIds: [] },
        ctx,
        stream,
      ),
  };
}
