import { KeyedLock } from "@tocsin/core";
import type { Collection, Db } from "mongodb";

interface CounterDoc {
  _id: string;
  seq: number;
}

/**
 * Number sequences, one document per name in a `counters` collection (`_id` = the name: the
 * primary key on MongoDB, a filter FerretDB 1.x pushes down to its backend). `$inc` is atomic on MongoDB but
 * not on FerretDB 1.x (an unlocked read-modify-write), so increments of one sequence are also
 * serialised within this process; the rows they number still go under unique indexes with a
 * retry, which covers several processes on MongoDB.
 */
export class MongoSequences {
  private static readonly locks = new KeyedLock();
  private readonly col: Collection<CounterDoc>;

  constructor(db: Db, collection = "counters") {
    this.col = db.collection<CounterDoc>(collection);
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
      const doc = await this.col.findOneAndUpdate(
        { _id: name },
        { $inc: { seq: count } },
        { upsert: true, returnDocument: "after" },
      );
      if (typeof doc?.seq !== "number") throw new Error(`sequence ${name} returned no number`);
      return doc.seq;
    });
  }
}
