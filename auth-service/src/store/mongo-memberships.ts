import { isDuplicateKey } from "@tocsin/store";
import type { MembershipRecord, SourceType } from "../domain/types.js";
import { type Docs, fromDoc, type MemberDoc } from "./mongo-docs.js";

/** Memberships on MongoDB (collection `memberships`, `_id` = `sourceType:sourceId:userId`). */
type Members = Docs["memberships"];

export async function upsert(memberships: Members, m: MembershipRecord): Promise<void> {
  const _id = `${m.sourceType}:${m.sourceId}:${m.userId}`;
  const write = () =>
    memberships.updateOne(
      { _id },
      {
        $set: { accessLevel: m.accessLevel },
        $setOnInsert: { sourceType: m.sourceType, sourceId: m.sourceId, userId: m.userId },
      },
      { upsert: true },
    );
  // Two replicas adding the member at once: FerretDB does not retry the upsert that lost.
  await write().catch((err: unknown) => {
    if (isDuplicateKey(err)) return write();
    throw err;
  });
}

export async function listOfUser(memberships: Members, userId: number): Promise<MembershipRecord[]> {
  return (await memberships.find({ userId }).toArray()).map(fromDoc.membership);
}

export async function listOfSources(
  memberships: Members,
  sources: { type: SourceType; id: number }[],
): Promise<MembershipRecord[]> {
  if (sources.length === 0) return [];
  const filter = { $or: sources.map((s) => ({ sourceType: s.type, sourceId: s.id })) } as Partial<MemberDoc>;
  return (await memberships.find(filter).toArray()).map(fromDoc.membership);
}
