import type { Clock } from "@tocsin/core";
import type { Database } from "better-sqlite3";
import type { Db } from "mongodb";
import type { AlertServiceConfig } from "./config.js";
import { createDestinations, type Destinations } from "./domain/channels/destinations.js";
import type { DestinationStore } from "./domain/channels/ports.js";
import type { ProjectAccess } from "./domain/ports.js";
import { createMongoDestinationStore } from "./store/channels/mongo-destination-store.js";
import { createSqliteDestinationStore } from "./store/channels/sqlite-destination-store.js";

export interface ChannelsRuntimeOptions {
  config: Pick<AlertServiceConfig, "channels">;
  /** Exactly one of sqlite / mongo keeps the destinations (the alert database). */
  sqlite?: Database;
  mongo?: Db;
  projects: ProjectAccess;
  clock: Clock;
}

export interface ChannelsRuntime {
  store: DestinationStore;
  /** The configuration use-cases (ChannelService). */
  destinations: Destinations;
}

/** Wires the outbound channels (docs/channels.md): destinations. */
export async function createChannelsRuntime(opts: ChannelsRuntimeOptions): Promise<ChannelsRuntime> {
  let store: DestinationStore;
  if (opts.sqlite) store = createSqliteDestinationStore(opts.sqlite);
  else if (opts.mongo) store = await createMongoDestinationStore(opts.mongo);
  else throw new Error("channels runtime: a data store (sqlite or mongo) is required");
  const destinations = createDestinations({
    store,
    projects: opts.projects,
    clock: opts.clock,
    allowLocalNetwork: opts.config.channels.allowLocalNetwork,
  });
  return { store, destinations };
}
