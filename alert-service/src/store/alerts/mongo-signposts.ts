import { isDuplicateKey } from "@tocsin/store";
import type { Db } from "mongodb";
import { COLLECTIONS, type IdBlocks } from "./mongo-common.js";

/** `open_alerts`: where to find the unresolved alert of `<project>:<fingerprint>` (its `_id`). */
interface SignpostDoc {
  _id: string;
  alert_id: number;
}

/**
 * Signposts to the open alert of each fingerprint, by `_id` = `<project>:<fingerprint>`. Only a
 * signpost: the one-open-alert rule is the unique `open_key` index of `alerts`, and readers
 * check the alert a signpost names (a stale one, left by a resolve or a crash, is ignored; a
 * missing one is restored when an insert hits the index).
 */
export class OpenAlertSignposts {
  /** Alert ids signposted by `probeFirstSight`, for the alert `create` is about to insert. */
  private readonly reserved = new Map<string, number>();

  constructor(
    private readonly db: Db,
    private readonly ids: IdBlocks,
  ) {}

  private get col() {
    return this.db.collection<SignpostDoc>(COLLECTIONS.openAlerts);
  }

  /** The alert id the signpost of `key` names, if there is one. */
  async lookup(key: string): Promise<number | undefined> {
    return (await this.col.findOne({ _id: key }))?.alert_id;
  }

  /**
   * FerretDB 1.x: a `find` that matches nothing reads the whole collection, but an insert checks
   * its unique `_id` in an index. So a fingerprint is first probed with an insert of its
   * signpost, pointing at an alert id taken in advance: when it goes in (true), the fingerprint
   * had no signpost, hence no open alert (an alert is signposted right after its insert, and one
   * left unsignposted by a crash is found when the next insert hits the unique index), and
   * `takeReserved` gives that id to the alert. A signpost whose alert never comes is ignored
   * like a stale one.
   */
  async probeFirstSight(key: string): Promise<boolean> {
    const id = await this.ids.next();
    try {
      await this.col.insertOne({ _id: key, alert_id: id });
    } catch (err) {
      if (isDuplicateKey(err)) return false;
      throw err;
    }
    if (this.reserved.size >= 1000) this.reserved.clear(); // an unused one only costs an update later
    this.reserved.set(key, id);
    return true;
  }

  /** The id `probeFirstSight` signposted for `key`, once. */
  takeReserved(key: string): number | undefined {
    const id = this.reserved.get(key);
    this.reserved.delete(key);
    return id;
  }

  /**
   * Points `key` at the alert: an insert for a fingerprint seen for the first time (FerretDB 1.x
   * reads the whole collection for every update, even by `_id`, but not for an insert), an
   * update when the fingerprint had an alert before.
   */
  async point(key: string, alertId: number): Promise<void> {
    try {
      await this.col.insertOne({ _id: key, alert_id: alertId });
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      await this.col.updateOne({ _id: key }, { $set: { alert_id: alertId } });
    }
  }
}
