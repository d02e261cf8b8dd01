import type { NewSession, SessionStore } from "../domain/ports.js";
import type { SessionRecord } from "../domain/types.js";
import { type Docs, fromDoc } from "./mongo-docs.js";

/** SessionStore on the auth-service's MongoDB database (collections `sessions`, `sign_in_failures`). */
export class MongoSessionStore implements SessionStore {
  constructor(
    private readonly c: Pick<Docs, "sessions" | "signInFailures">,
    private readonly nextId: (sequence: string) => Promise<number>,
  ) {}

  async insertSession(input: NewSession): Promise<SessionRecord> {
    const id = await this.nextId("sessions");
    await this.c.sessions.insertOne({ _id: id, ...input });
    return { ...input, id };
  }

  async findSessionByHash(tokenHash: string): Promise<SessionRecord | null> {
    const doc = await this.c.sessions.findOne({ tokenHash });
    return doc ? fromDoc.session(doc) : null;
  }

  async touchSession(id: number, lastSeenAt: Date): Promise<void> {
    await this.c.sessions.updateOne({ _id: id }, { $set: { lastSeenAt } });
  }

  async deleteSession(id: number): Promise<boolean> {
    return (await this.c.sessions.deleteOne({ _id: id })).deletedCount > 0;
  }

  async deleteSessionsIdleSince(before: Date): Promise<number> {
    return (await this.c.sessions.deleteMany({ lastSeenAt: { $lt: before } })).deletedCount;
  }

  async deleteSessionsOfUser(userId: number): Promise<number[]> {
    const ids = (await this.c.sessions.find({ userId }, { projection: { _id: 1 } }).toArray()).map((d) => d._id);
    if (ids.length) await this.c.sessions.deleteMany({ _id: { $in: ids } });
    return ids.sort((a, b) => a - b);
  }

  async addSignInFailure(key: string, at: Date, forgetBefore: Date): Promise<void> {
    await this.c.signInFailures.deleteMany({ at: { $lt: forgetBefore } });
    await this.c.signInFailures.insertOne({ loginKey: key, at });
  }

  async listSignInFailures(key: string, since: Date): Promise<Date[]> {
    const docs = await this.c.signInFailures
      .find({ loginKey: key, at: { $gte: since } })
      .sort({ at: 1 })
      .toArray();
    return docs.map((d) => d.at);
  }

  async clearSignInFailures(key: string): Promise<void> {
    await this.c.signInFailures.deleteMany({ loginKey: key });
  }
}
