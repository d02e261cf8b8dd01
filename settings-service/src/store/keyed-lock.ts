/**
 * Runs tasks with the same key one after another (tasks with different keys run in parallel).
 * Used by the MongoDB adapter because FerretDB 1.x applies update operators as an unlocked
 * read-modify-write: two concurrent `$set`s (even `$inc`s) on one document lose one of them.
 */
export class KeyedLock {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(task, task);
    const tail = result.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }

  get size(): number {
    return this.tails.size;
  }
}
