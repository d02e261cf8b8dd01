import { describe, expect, it } from "vitest";
import { onCallAt, scheduleShifts } from "./shifts.js";
import type { RotationFields } from "./types.js";

// Golden tables written by hand (not produced by the code under test). Daylight saving in 2026:
// Europe/London     29 Mar 01:00 GMT → 02:00 BST (01:00Z); 25 Oct 02:00 BST → 01:00 GMT (01:00Z)
// America/Chicago    8 Mar 02:00 CST → 03:00 CDT (08:00Z);  1 Nov 02:00 CDT → 01:00 CST (07:00Z)
// Australia/Sydney   5 Apr 03:00 AEDT → 02:00 AEST (4 Apr 16:00Z); 4 Oct 02:00 AEST → 03:00 AEDT (3 Oct 16:00Z)

const A = 1;
const B = 2;
const C = 3;

type Row = [user: number, startsAt: string, endsAt: string];

function rotation(fields: Partial<RotationFields> & Pick<RotationFields, "startsAt" | "unit">, id = 7) {
  return { id, length: 1, participantIds: [A, B], ...fields };
}

const ms = (iso: string) => Date.parse(iso);

function table(
  zone: string,
  rotations: ReturnType<typeof rotation>[],
  from: string,
  to: string,
  overrides = [] as Override[],
): Row[] {
  return scheduleShifts(zone, rotations, overrides, ms(from), ms(to)).map((s) => [
    s.userId,
    new Date(s.startsAt).toISOString(),
    new Date(s.endsAt).toISOString(),
  ]);
}

type Override = { id: number; userId: number; startsAt: Date; endsAt: Date };

describe("daily and weekly rotations keep their wall-clock handover across daylight saving", () => {
  it("Europe/London, daily 09:00, March: the night of the change is 23 hours", () => {
    expect(
      table(
        "Europe/London",
        [rotation({ startsAt: "2026-03-27T09:00", unit: "days" })],
        "2026-03-27T00:00:00Z",
        "2026-03-31T00:00:00Z",
      ),
    ).toEqual([
      [A, "2026-03-27T09:00:00.000Z", "2026-03-28T09:00:00.000Z"],
      [B, "2026-03-28T09:00:00.000Z", "2026-03-29T08:00:00.000Z"],
      [A, "2026-03-29T08:00:00.000Z", "2026-03-30T08:00:00.000Z"],
      [B, "2026-03-30T08:00:00.000Z", "2026-03-31T08:00:00.000Z"],
    ]);
  });

  it("Europe/London, weekly Monday 09:00, October: the week of the change is 169 hours", () => {
    const r = rotation({ startsAt: "2026-10-19T09:00", unit: "weeks", participantIds: [A, B, C] });
    expect(table("Europe/London", [r], "2026-10-19T00:00:00Z", "2026-11-05T00:00:00Z")).toEqual([
      [A, "2026-10-19T08:00:00.000Z", "2026-10-26T09:00:00.000Z"],
      [B, "2026-10-26T09:00:00.000Z", "2026-11-02T09:00:00.000Z"],
      [C, "2026-11-02T09:00:00.000Z", "2026-11-09T09:00:00.000Z"],
    ]);
  });

  it("Australia/Sydney, daily 09:00, April: the day of the change is 25 hours", () => {
    expect(
      table(
        "Australia/Sydney",
        [rotation({ startsAt: "2026-04-03T09:00", unit: "days" })],
        "2026-04-02T00:00:00Z",
        "2026-04-05T12:00:00Z",
      ),
    ).toEqual([
      [A, "2026-04-02T22:00:00.000Z", "2026-04-03T22:00:00.000Z"],
      [B, "2026-04-03T22:00:00.000Z", "2026-04-04T23:00:00.000Z"],
      [A, "2026-04-04T23:00:00.000Z", "2026-04-05T23:00:00.000Z"],
    ]);
  });

  it("Australia/Sydney, weekly Monday 09:00, October: the week of the change is 167 hours", () => {
    expect(
      table(
        "Australia/Sydney",
        [rotation({ startsAt: "2026-09-28T09:00", unit: "weeks" })],
        "2026-09-27T00:00:00Z",
        "2026-10-08T00:00:00Z",
      ),
    ).toEqual([
      [A, "2026-09-27T23:00:00.000Z", "2026-10-04T22:00:00.000Z"],
      [B, "2026-10-04T22:00:00.000Z", "2026-10-11T22:00:00.000Z"],
    ]);
  });
});

describe("hourly rotations add exact hours", () => {
  it("America/Chicago, every 2 hours through the November change: local 00:00, 01:00 CST, 03:00", () => {
    const r = rotation({ startsAt: "2026-11-01T00:00", unit: "hours", length: 2 });
    expect(table("America/Chicago", [r], "2026-11-01T05:00:00Z", "2026-11-01T11:00:00Z")).toEqual([
      [A, "2026-11-01T05:00:00.000Z", "2026-11-01T07:00:00.000Z"],
      [B, "2026-11-01T07:00:00.000Z", "2026-11-01T09:00:00.000Z"],
      [A, "2026-11-01T09:00:00.000Z", "2026-11-01T11:00:00.000Z"],
    ]);
  });

  it("America/Chicago, every hour through the March gap", () => {
    const r = rotation({ startsAt: "2026-03-08T00:00", unit: "hours" });
    expect(table("America/Chicago", [r], "2026-03-08T06:00:00Z", "2026-03-08T10:00:00Z")).toEqual([
      [A, "2026-03-08T06:00:00.000Z", "2026-03-08T07:00:00.000Z"],
      [B, "2026-03-08T07:00:00.000Z", "2026-03-08T08:00:00.000Z"],
      [A, "2026-03-08T08:00:00.000Z", "2026-03-08T09:00:00.000Z"],
      [B, "2026-03-08T09:00:00.000Z", "2026-03-08T10:00:00.000Z"],
    ]);
  });
});

describe("active periods", () => {
  it("America/Chicago, daily 08:00 with 22:00–06:00 overnight: the night of the March change is 7 hours", () => {
    const r = rotation({ startsAt: "2026-03-06T08:00", unit: "days", activePeriod: { startTime: "22:00", endTime: "06:00" } });
    expect(table("America/Chicago", [r], "2026-03-06T00:00:00Z", "2026-03-09T20:00:00Z")).toEqual([
      [A, "2026-03-07T04:00:00.000Z", "2026-03-07T12:00:00.000Z"],
      [B, "2026-03-08T04:00:00.000Z", "2026-03-08T11:00:00.000Z"],
      [A, "2026-03-09T03:00:00.000Z", "2026-03-09T11:00:00.000Z"],
    ]);
  });

  it("Europe/London, weekly with 09:00–17:00: one shift per day for the week's participant", () => {
    const r = rotation({ startsAt: "2026-03-23T09:00", unit: "weeks", activePeriod: { startTime: "09:00", endTime: "17:00" } });
    expect(table("Europe/London", [r], "2026-03-27T00:00:00Z", "2026-03-31T00:00:00Z")).toEqual([
      [A, "2026-03-27T09:00:00.000Z", "2026-03-27T17:00:00.000Z"],
      [A, "2026-03-28T09:00:00.000Z", "2026-03-28T17:00:00.000Z"],
      [A, "2026-03-29T08:00:00.000Z", "2026-03-29T16:00:00.000Z"],
      [B, "2026-03-30T08:00:00.000Z", "2026-03-30T16:00:00.000Z"],
    ]);
  });
});

describe("overrides", () => {
  const daily = rotation({ startsAt: "2026-03-27T09:00", unit: "days" });
  const override = { id: 40, userId: C, startsAt: new Date("2026-03-28T12:00:00Z"), endsAt: new Date("2026-03-28T18:00:00Z") };

  it("an override splits the shift it falls in", () => {
    expect(table("Europe/London", [daily], "2026-03-28T00:00:00Z", "2026-03-29T00:00:00Z", [override])).toEqual([
      [A, "2026-03-27T09:00:00.000Z", "2026-03-28T09:00:00.000Z"],
      [B, "2026-03-28T09:00:00.000Z", "2026-03-28T12:00:00.000Z"],
      [C, "2026-03-28T12:00:00.000Z", "2026-03-28T18:00:00.000Z"],
      [B, "2026-03-28T18:00:00.000Z", "2026-03-29T08:00:00.000Z"],
    ]);
    const shifts = scheduleShifts("Europe/London", [daily], [override], ms("2026-03-28T12:00:00Z"), ms("2026-03-28T13:00:00Z"));
    expect(shifts.map((s) => [s.rotationId, s.overrideId])).toEqual([[null, 40]]);
  });

  it("who is on call at t is answered from the same computation", () => {
    expect(onCallAt("Europe/London", [daily], [override], ms("2026-03-28T11:59:59Z"))).toEqual([B]);
    expect(onCallAt("Europe/London", [daily], [override], ms("2026-03-28T12:00:00Z"))).toEqual([C]);
    expect(onCallAt("Europe/London", [daily], [override], ms("2026-03-28T18:00:00Z"))).toEqual([B]);
    expect(onCallAt("Europe/London", [daily], [override], ms("2026-03-29T08:00:00Z"))).toEqual([A]);
    expect(onCallAt("Europe/London", [daily], [override], ms("2026-03-27T08:59:59Z"))).toEqual([]);
  });

  it("overlapping rotations put everyone on shift on call; an override beats all of them", () => {
    const other = rotation({ startsAt: "2026-03-28T00:00", unit: "hours", length: 24, participantIds: [C] }, 8);
    expect(onCallAt("Europe/London", [daily, other], [], ms("2026-03-28T10:00:00Z"))).toEqual([C, B]);
    const withA = { ...override, userId: A };
    expect(onCallAt("Europe/London", [daily, other], [withA], ms("2026-03-28T13:00:00Z"))).toEqual([A]);
  });
});

describe("starts_at in a daylight-saving gap or overlap, ends_at", () => {
  it("a handover in the spring gap moves forward by the gap; later days keep 01:30", () => {
    expect(
      table(
        "Europe/London",
        [rotation({ startsAt: "2026-03-29T01:30", unit: "days" })],
        "2026-03-29T00:00:00Z",
        "2026-03-31T00:00:00Z",
      ),
    ).toEqual([
      [A, "2026-03-29T01:30:00.000Z", "2026-03-30T00:30:00.000Z"],
      [B, "2026-03-30T00:30:00.000Z", "2026-03-31T00:30:00.000Z"],
    ]);
  });

  it("a handover in the autumn overlap is its first occurrence (London and Chicago alike)", () => {
    expect(
      table(
        "Europe/London",
        [rotation({ startsAt: "2026-10-25T01:30", unit: "days" })],
        "2026-10-25T00:00:00Z",
        "2026-10-26T00:00:00Z",
      ),
    ).toEqual([[A, "2026-10-25T00:30:00.000Z", "2026-10-26T01:30:00.000Z"]]);
    expect(
      table(
        "America/Chicago",
        [rotation({ startsAt: "2026-11-01T01:30", unit: "days" })],
        "2026-11-01T00:00:00Z",
        "2026-11-02T00:00:00Z",
      ),
    ).toEqual([[A, "2026-11-01T06:30:00.000Z", "2026-11-02T07:30:00.000Z"]]);
  });

  it("ends_at (wall clock) ends the last shift and the rotation", () => {
    const r = rotation({ startsAt: "2026-03-27T09:00", endsAt: "2026-03-29T21:00", unit: "days" });
    expect(table("Europe/London", [r], "2026-03-27T00:00:00Z", "2026-04-05T00:00:00Z")).toEqual([
      [A, "2026-03-27T09:00:00.000Z", "2026-03-28T09:00:00.000Z"],
      [B, "2026-03-28T09:00:00.000Z", "2026-03-29T08:00:00.000Z"],
      [A, "2026-03-29T08:00:00.000Z", "2026-03-29T20:00:00.000Z"],
    ]);
  });

  it("a window far after starts_at starts at the right participant", () => {
    const r = rotation({ startsAt: "2026-01-01T09:00", unit: "days", participantIds: [A, B, C] });
    // 2026-03-29 is day 87 after 1 January: 87 mod 3 = 0 → A, in BST.
    expect(table("Europe/London", [r], "2026-03-29T12:00:00Z", "2026-03-29T13:00:00Z")).toEqual([
      [A, "2026-03-29T08:00:00.000Z", "2026-03-30T08:00:00.000Z"],
    ]);
  });
});
