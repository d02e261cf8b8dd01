import { AppError, type Logger, type SecretBox } from "@tocsin/core";
import type { DestinationStore } from "../../domain/channels/ports.js";
import type { DestinationRecord } from "../../domain/channels/types.js";

/** The credentials among a destination's fields: a chat webhook URL is one (its path is the key). */
const SEALED = ["url", "token", "signingSecret", "previousSigningSecret"] as const;
type Sealed = Pick<DestinationRecord, (typeof SEALED)[number]>;

/** `SecretBox.seal`'s output behind a marker: anything else was written before sealing (plain). */
const MARK = "sealed:";
const SEALED_FORM = /^sealed:v1:[0-9a-f]{24}:[0-9a-f]{32}:[0-9a-f]*$/;

/** INTERNAL (500, its message logged as it is: GCM's own error says nothing more). */
const unreadable = () =>
  new AppError(
    "INTERNAL",
    "SECRET_UNREADABLE",
    "a destination's secret cannot be decrypted: SECRET_KEY is unset or not the key it was sealed with",
  );

const isSealed = (value: string | null) => value !== null && SEALED_FORM.test(value);

/**
 * Destinations with their credentials encrypted at rest (AES-256-GCM with `SECRET_KEY`,
 * docs/channels.md): sealed on write, opened on read. Values written before sealing are read as
 * they are, and `sealPlainSecrets` seals them at start. Without a key, writes stay plain and a
 * sealed value read answers SECRET_UNREADABLE.
 */
export function sealedDestinationStore(store: DestinationStore, box: SecretBox | undefined): DestinationStore {
  const seal = <T extends Partial<Sealed>>(fields: T): T => {
    if (!box) return fields;
    const out: Record<string, unknown> = { ...fields };
    for (const f of SEALED) {
      const value = fields[f];
      if (typeof value === "string") out[f] = MARK + box.seal(value);
    }
    return out as T;
  };
  const openValue = (value: string | null) => {
    if (value === null || !isSealed(value)) return value;
    if (!box) throw unreadable();
    try {
      return box.open(value.slice(MARK.length));
    } catch {
      throw unreadable();
    }
  };
  const open = (record: DestinationRecord): DestinationRecord => ({
    ...record,
    url: openValue(record.url) as string,
    token: openValue(record.token),
    signingSecret: openValue(record.signingSecret),
    previousSigningSecret: openValue(record.previousSigningSecret),
  });
  const opened = async (record: Promise<DestinationRecord | undefined>) => {
    const r = await record;
    return r ? open(r) : undefined;
  };
  return {
    insert: async (input) => open(await store.insert(seal(input))),
    get: (projectId, id) => opened(store.get(projectId, id)),
    chat: (projectId, kind) => opened(store.chat(projectId, kind)),
    list: async (projectId, kind) => (await store.list(projectId, kind)).map(open),
    all: async () => (await store.all()).map(open),
    update: (projectId, id, patch, ifUpdatedAt) => opened(store.update(projectId, id, seal(patch), ifUpdatedAt)),
    delete: (projectId, id) => store.delete(projectId, id),
    ping: () => store.ping(),
  };
}

/**
 * Seals the credentials still stored in plain (written before sealing, or while no key was set),
 * each row only if it did not change meanwhile; its `updated_at` is kept. Answers how many rows.
 */
export async function sealPlainSecrets(raw: DestinationStore, box: SecretBox, logger: Logger): Promise<number> {
  const sealed = sealedDestinationStore(raw, box);
  let count = 0;
  for (const d of await raw.all()) {
    const plain = SEALED.filter((f) => d[f] !== null && !isSealed(d[f]));
    if (plain.length === 0) continue;
    const patch = Object.fromEntries(plain.map((f) => [f, d[f]]));
    if (await sealed.update(d.projectId, d.id, { ...patch, at: d.updatedAt }, d.updatedAt)) count++;
  }
  if (count > 0) logger.info({ destinations: count }, "sealed the secrets of destinations stored in plain");
  return count;
}
