/**
 * Runs tasks with the same key one after another within this process; tasks with different
 * keys run in parallel. The MongoDB adapters use it because FerretDB 1.x applies update
 * operators as an unlocked read-modify-write (two concurrent `$inc`s or `$set`s on one document
 * can lose one). MongoDB itself does not need it, and it costs nothing there.
 */
export class KeyedLock<K = string> {
  private readonly tails = new Map<K, Promise<unknown>>();

  run<T>(key: K, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(task, task);
    const tail = result.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }

  /** How many keys have work queued or running. */
  get size(): number {
    return this.tails.size;
  }
}
