import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { createSqliteDestinationStore } from "./sqlite-destination-store.js";

/** `channel_destinations` as the first release created it, before signing secrets overlapped on rotation. */
const FIRST_RELEASE = `
CREATE TABLE channel_destinations (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  project_id INTEGER NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('slack', 'mattermost', 'microsoft-teams', 'hook')),
  unique_key TEXT NOT NULL,
  url TEXT NOT NULL,
  token TEXT,
  signing_secret TEXT,
  username TEXT NOT NULL,
  channel TEXT NOT NULL,
  alert_channel TEXT NOT NULL,
  incident_channel TEXT NOT NULL,
  alert_events INTEGER NOT NULL,
  incident_events INTEGER NOT NULL,
  enable_ssl_verification INTEGER NOT NULL,
  signing INTEGER NOT NULL,
  disabled INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  UNIQUE (project_id, unique_key)
);
INSERT INTO channel_destinations VALUES
  (1, 1, 'hook', 'hook:x', 'https://hooks.example.com/h', NULL, 'whsec_old', '', '', '', '', 1, 0, 1, 1, 0, 0, 0);`;

describe("SQLite destination store on a first-release table", () => {
  it("adds the rotation columns on open, keeping the rows, and stores a rotation", async () => {
    const db = new Database(":memory:");
    db.exec(FIRST_RELEASE);
    const store = createSqliteDestinationStore(db);
    expect(await store.get(1, 1)).toMatchObject({
      signingSecret: "whsec_old",
      previousSigningSecret: null,
      previousSigningSecretExpiresAt: null,
    });
    const until = new Date("2026-12-05T00:00:00.000Z");
    const rotation = { signingSecret: "whsec_new", previousSigningSecret: "whsec_old", previousSigningSecretExpiresAt: until };
    await store.update(1, 1, { ...rotation, at: new Date("2026-12-04T00:00:00.000Z") });
    // Opening again finds the columns there and adds nothing.
    expect(await createSqliteDestinationStore(db).get(1, 1)).toMatchObject(rotation);
    db.close();
  });
});
