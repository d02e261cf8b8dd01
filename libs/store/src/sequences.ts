import { KeyedLock } from "@tocsin/core";
import type { Collection, Db } from "mongodb";
import { isDuplicateKey } from "./duplicates.js";

interface CounterDoc {
  _id: string;
  seq: number;
}

/**
 * Number sequences, one document per name in a `counters` collection (`_id` = the name: the
 * primary key on MongoDB, a filter FerretDB 1.x pushes down to its backend). `$inc` is atomic on
 * MongoDB but not on FerretDB 1.x (an unlocked read-modify-write: two processes can get the same
 * number, and the counter can step back), so increments of one sequence are serialised within
 * this process, and across processes a number is only a candidate: the rows it numbers go under
 * unique indexes with a retry, and a block of ids is owned once its claim document is inserted
 * (`reserveBlock`). Inserts under a unique key are atomic on every MongoDB-protocol server.
 */
export class MongoSequences {
  private static readonly locks = new KeyedLock();
  private readonly col: Collection<CounterDoc>;

  private readonly claims: Collection<{ _id: string }>;

  constructor(db: Db, collection = "counters") {
    this.col = db.collection<CounterDoc>(collection);
    this.claims = db.collection<{ _id: string }>(`${collection}_claims`);
  }

  /** The next number of `name` (1 for a new sequence). Throws when the server returns no document. */
  next(name: string): Promise<number> {
    return this.reserve(name, 1);
  }

  /**
   * Reserves `count` numbers at once and returns the last: the caller owns `last - count + 1 … last`.
   * One round trip for a block of ids whose gaps nobody sees.
   */
  reserve(name: string, count: number): Promise<number> {
    return MongoSequences.locks.run(`${this.col.dbName}:${this.col.collectionName}:${name}`, async () => {
      const inc = () =>
        this.col.findOneAndUpdate({ _id: name }, { $inc: { seq: count } }, { upsert: true, returnDocument: "after" });
      // Two processes creating a sequence at once: one upsert inserts, the other's insert fails on
      // the `_id` (MongoDB retries such an upsert itself, FerretDB does not); the document exists now.
      const doc = await inc().catch((err: unknown) => {
        if (isDuplicateKey(err)) return inc();
        throw err;
      });
      if (typeof doc?.seq !== "number") throw new Error(`sequence ${name} returned no number`);
      return doc.seq;
    });
  }

  /**
   * Reserves a block of `size` numbers that no other process holds, and returns its last: a
   * candidate block from `reserve` is owned once the insert of its claim (`_id` = `<name>:<last>`)
   * succeeds; a block another process claimed first (FerretDB handed it out twice) is skipped.
   * Every block of a name must have the same size.
   */
  async reserveBlock(name: string, size: number): Promise<number> {
    for (let attempt = 0; attempt < 1000; attempt++) {
      const last = await this.reserve(name, size);
      try {
        await this.claims.insertOne({ _id: `${name}:${last}` });
        return last;
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
      }
    }
    throw new Error(`sequence ${name}: no free block`);
  }

  /**
   * Moves `name` up to `atLeast` when it is below (numbers taken past it by a process that found
   * the counter behind: FerretDB's unlocked `$inc` can step it back). A hint on FerretDB, exact on
   * MongoDB; either way the rows' unique indexes decide.
   */
  async raise(name: string, atLeast: number): Promise<void> {
    await MongoSequences.locks.run(`${this.col.dbName}:${this.col.collectionName}:${name}`, () =>
      this.col.updateOne({ _id: name, seq: { $lt: atLeast } }, { $set: { seq: atLeast } }),
    );
  }
}
