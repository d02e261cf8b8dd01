export { isDuplicateKey, isUniqueViolation } from "./duplicates.js";
export { mongoDbName } from "./mongo-db-name.js";
export { prepared } from "./prepared.js";
export { MongoSequences } from "./sequences.js";
export { type Checkpoints, openSqlite, WAL_AUTOCHECKPOINT_PAGES, WAL_BACKSTOP_PAGES } from "./sqlite.js";
export { storePrefix } from "./store-prefix.js";
export { checkpointWhenDue, walFrames } from "./wal-checkpoints.js";
export { deleteInChunks, isBusy, tryWrite, WRITE_LOCK_TIMEOUT_MS, writeWhenFree } from "./write-lock.js";
