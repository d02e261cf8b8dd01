import { MERGED_UP_TO, REOPEN_REFUSED } from "./sqlite-open-fingerprints.js";

/**
 * Version 5 → 6 (issue 25 items 2 and 5: a new alert writes no random leaf). The partial unique
 * index `alerts_one_open_per_fingerprint` is keyed by a hash: each new alert's entry landed on a
 * leaf of its own, about half the pages a new alert wrote, more as the store grew. It becomes
 * `alert_open_fingerprints` (the open alerts up to the `fingerprints_merged` counter, filled here
 * from the open alerts present) and, for the alerts after the counter, the store's map, merged
 * into the table in key order every `MERGE_FINGERPRINTS_AT` alerts (sqlite-open-fingerprints.ts).
 * Triggers keep the table: a resolve or a delete takes an alert out; a reopen puts a merged one
 * back (and logs it in `alert_fingerprint_reopens`, for the stores' filters of the table's keys)
 * and is refused, as the index refused it, while another alert of the fingerprint is open
 * (among the alerts after the counter: a scan of them, on a reopen only).
 */
export const V5_TO_V6 = `
DROP INDEX IF EXISTS alerts_one_open_per_fingerprint;
CREATE TABLE alert_open_fingerprints (
  project_id INTEGER NOT NULL,
  fingerprint TEXT NOT NULL,
  alert_id INTEGER NOT NULL,
  PRIMARY KEY (project_id, fingerprint)
) WITHOUT ROWID;
INSERT INTO alert_open_fingerprints (project_id, fingerprint, alert_id)
  SELECT project_id, fingerprint, id FROM alerts WHERE fingerprint IS NOT NULL AND status <> 2 ORDER BY project_id, fingerprint;
CREATE TABLE alert_fingerprint_reopens (
  seq INTEGER PRIMARY KEY,
  project_id INTEGER NOT NULL,
  fingerprint TEXT NOT NULL
);
INSERT INTO alert_counters (name, value) VALUES ('${MERGED_UP_TO}', (SELECT COALESCE(MAX(id), 0) FROM alerts))
  ON CONFLICT (name) DO UPDATE SET value = excluded.value;
CREATE TRIGGER alert_fingerprint_closed AFTER UPDATE OF status ON alerts
  WHEN new.status = 2 AND old.status <> 2 AND old.fingerprint IS NOT NULL BEGIN
  DELETE FROM alert_open_fingerprints WHERE project_id = old.project_id AND fingerprint = old.fingerprint AND alert_id = old.id;
END;
CREATE TRIGGER alert_fingerprint_reopen_check BEFORE UPDATE OF status ON alerts
  WHEN old.status = 2 AND new.status <> 2 AND old.fingerprint IS NOT NULL BEGIN
  SELECT RAISE(ABORT, '${REOPEN_REFUSED}') WHERE EXISTS (
    SELECT 1 FROM alert_open_fingerprints WHERE project_id = old.project_id AND fingerprint = old.fingerprint
  ) OR EXISTS (
    SELECT 1 FROM alerts NOT INDEXED
    WHERE id > (SELECT value FROM alert_counters WHERE name = '${MERGED_UP_TO}')
      AND project_id = old.project_id AND fingerprint = old.fingerprint AND status <> 2 AND id <> old.id
  );
END;
CREATE TRIGGER alert_fingerprint_reopened AFTER UPDATE OF status ON alerts
  WHEN old.status = 2 AND new.status <> 2 AND old.fingerprint IS NOT NULL
    AND old.id <= (SELECT value FROM alert_counters WHERE name = '${MERGED_UP_TO}') BEGIN
  INSERT INTO alert_open_fingerprints (project_id, fingerprint, alert_id) VALUES (old.project_id, old.fingerprint, old.id);
  INSERT INTO alert_fingerprint_reopens (project_id, fingerprint) VALUES (old.project_id, old.fingerprint);
END;
CREATE TRIGGER alert_fingerprint_deleted AFTER DELETE ON alerts WHEN old.fingerprint IS NOT NULL BEGIN
  DELETE FROM alert_open_fingerprints WHERE project_id = old.project_id AND fingerprint = old.fingerprint AND alert_id = old.id;
END;
`;
