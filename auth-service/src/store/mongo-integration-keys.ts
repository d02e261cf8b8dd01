import type { KeyPatch } from "../domain/ports.js";
import type { IntegrationKeyRecord } from "../domain/types.js";
import { guardMongo } from "./duplicates.js";
import { type Docs, fromDoc, type KeyDoc } from "./mongo-docs.js";

/** Integration keys on MongoDB (collection `integration_keys`, `_id` = integration id). */
type Keys = Docs["keys"];

export async function insert(keys: Keys, input: IntegrationKeyRecord): Promise<IntegrationKeyRecord> {
  const { integrationId, ...rest } = input;
  await guardMongo(
    () => keys.insertOne({ _id: integrationId, ...rest }),
    async () => ((await keys.findOne({ _id: integrationId })) ? "integration" : "endpoint"),
  );
  return { ...input };
}

export async function get(keys: Keys, integrationId: number): Promise<IntegrationKeyRecord | null> {
  const doc = await keys.findOne({ _id: integrationId });
  return doc ? fromDoc.key(doc) : null;
}

export async function list(keys: Keys, projectId: number): Promise<IntegrationKeyRecord[]> {
  return (await keys.find({ projectId }).sort({ createdAt: 1, _id: 1 }).toArray()).map(fromDoc.key);
}

export async function findByEndpoint(
  keys: Keys,
  projectId: number,
  endpointIdentifier: string,
): Promise<IntegrationKeyRecord | null> {
  const doc = await keys.findOne({ projectId, endpointIdentifier });
  return doc ? fromDoc.key(doc) : null;
}

export async function update(keys: Keys, integrationId: number, patch: KeyPatch): Promise<IntegrationKeyRecord | null> {
  const set: Partial<KeyDoc> = {};
  if (patch.active !== undefined) set.active = patch.active;
  if (patch.sealedToken !== undefined) set.sealedToken = patch.sealedToken;
  if (patch.tokenSha256 !== undefined) set.tokenSha256 = patch.tokenSha256;
  if (patch.previousTokenSha256 !== undefined) set.previousTokenSha256 = patch.previousTokenSha256;
  if (patch.previousTokenExpiresAt !== undefined) set.previousTokenExpiresAt = patch.previousTokenExpiresAt;
  if (patch.sealedSigningSecret !== undefined) set.sealedSigningSecret = patch.sealedSigningSecret;
  if (Object.keys(set).length === 0) return get(keys, integrationId);
  const doc = await keys.findOneAndUpdate({ _id: integrationId }, { $set: set }, { returnDocument: "after" });
  return doc ? fromDoc.key(doc) : null;
}

export async function remove(keys: Keys, integrationId: number): Promise<IntegrationKeyRecord | null> {
  const doc = await keys.findOneAndDelete({ _id: integrationId });
  return doc ? fromDoc.key(doc) : null;
}
