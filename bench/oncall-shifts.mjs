// The on-call computation's cost (issue 22): a schedule of 10 rotations × 100 participants in
// Europe/London, over March 2026 (which holds the change to summer time). Pure CPU, no I/O:
// it runs the built module (`npx tsc -b` first).
//
//   node bench/oncall-shifts.mjs [runs]
//
// Prints the median time of (a) all shifts of the month, (b) "who is on call at t" for every
// hour of the month (744 calls), and the shift count, with the date, commit and node version.
import { execFileSync } from "node:child_process";
import { performance } from "node:perf_hooks";
import { onCallAt, scheduleShifts } from "../settings-service/dist/domain/oncall/shifts.js";
import { median } from "./lib/stats.mjs";

const runs = Number(process.argv[2] ?? 15);
const zone = "Europe/London";
const participants = Array.from({ length: 100 }, (_, i) => i + 1);
const kinds = [
  { length: 4, unit: "hours" },
  { length: 1, unit: "days" },
  { length: 1, unit: "weeks" },
  { length: 1, unit: "days", activePeriod: { startTime: "22:00", endTime: "06:00" } },
  { length: 2, unit: "weeks", activePeriod: { startTime: "09:00", endTime: "17:00" } },
];
const rotations = Array.from({ length: 10 }, (_, i) => ({
  id: i + 1,
  startsAt: `2025-0${1 + (i % 9)}-0${1 + (i % 9)}T0${i % 10}:30`,
  participantIds: participants,
  ...kinds[i % kinds.length],
}));
const overrides = Array.from({ length: 20 }, (_, i) => ({
  id: i + 1,
  userId: 1 + i,
  startsAt: new Date(Date.UTC(2026, 2, 1 + i, 10)),
  endsAt: new Date(Date.UTC(2026, 2, 1 + i, 16)),
}));
const from = Date.UTC(2026, 2, 1);
const to = Date.UTC(2026, 3, 1);

function time(fn) {
  const samples = [];
  let result;
  fn(); // warm-up
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    result = fn();
    samples.push(performance.now() - t0);
  }
  return { ms: median(samples), result };
}

const month = time(() => scheduleShifts(zone, rotations, overrides, from, to));
const hours = [];
for (let t = from; t < to; t += 3_600_000) hours.push(t);
const hourly = time(() => hours.map((t) => onCallAt(zone, rotations, overrides, t)));

const commit = execFileSync("git", ["rev-parse", "--short", "HEAD"]).toString().trim();
console.log(`${new Date().toISOString()} commit ${commit} node ${process.version}, median of ${runs} runs`);
console.log(
  `shifts of March 2026 (10 rotations × 100 participants, 20 overrides): ${month.result.length} shifts, ${month.ms.toFixed(2)} ms`,
);
console.log(
  `who is on call at each hour of the month: ${hours.length} calls, ${hourly.ms.toFixed(1)} ms (${((hourly.ms / hours.length) * 1000).toFixed(0)} µs per call)`,
);
