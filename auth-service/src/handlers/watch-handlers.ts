import type { AppError } from "@tocsin/core";
import type { ServerCallContext, ServerStream, ServiceHandlers } from "@tocsin/grpc";
import type { authV1 } from "@tocsin/proto";
import type { EventHub } from "../domain/event-hub.js";
import type { UseCases } from "./use-cases.js";

type Def = typeof authV1.AuthServiceService;

/**
 * Writes every event of `hub` to `stream` until the caller cancels or the hub closes (then the
 * stream ends) or is interrupted (then it fails with UNAVAILABLE, and so does a stream opened
 * while it is: the subscriber caches nothing until a new stream delivers its first message).
 * `first` is written once the subscription is in place: anything the subscriber cached before
 * may be stale.
 */
function pipeHub<T, M>(hub: EventHub<T>, toMessage: (event: T) => M, first: M, ctx: ServerCallContext, stream: ServerStream<M>) {
  return new Promise<void>((resolve, reject) => {
    let done = false;
    let unsubscribe = () => {};
    const finish = (end: boolean, err?: AppError) => {
      if (done) return;
      done = true;
      unsubscribe();
      if (err) return reject(err);
      if (end) stream.end();
      resolve();
    };
    unsubscribe = hub.subscribe(
      (event) => stream.write(toMessage(event)),
      (err) => finish(true, err),
    );
    if (done) return;
    stream.write(first);
    stream.onCancel(() => finish(false));
    if (ctx.cancelled()) finish(false);
  });
}

/** The two change streams: integration keys (webhook endpoint caches) and access (principal and visibility caches). */
export function watchHandlers(u: UseCases): Pick<ServiceHandlers<Def>, "watchIntegrationKeys" | "watchAccessChanges"> {
  return {
    watchIntegrationKeys: (_req, ctx, stream) =>
      pipeHub(u.watch.keys, (event) => ({ ...event }), { projectId: 0, projectFullPath: "", all: true }, ctx, stream),
    watchAccessChanges: (_req, ctx, stream) =>
      pipeHub(
        u.watch.access,
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
