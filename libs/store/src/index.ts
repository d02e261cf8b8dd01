export { isDuplicateKey, isUniqueViolation } from "./duplicates.js";
export { mongoDbName } from "./mongo-db-name.js";
export { prepared } from "./prepared.js";
export { MongoSequences } from "./sequences.js";
export { openSqlite } from "./sqlite.js";
export { storePrefix } from "./store-prefix.js";
export { deleteInChunks, isBusy, tryWrite, WRITE_LOCK_TIMEOUT_MS, writeWhenFree } from "./write-lock.js";
