// Fails when the committed ts-proto output differs from what the protos generate now.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const bin = (name) => join("node_modules", ".bin", name);
const out = mkdtempSync(join(tmpdir(), "tocsin-proto-"));
try {
  execFileSync(bin("buf"), ["lint", "proto"], { stdio: "inherit" });
  execFileSync(bin("buf"), ["generate", "proto", "--template", "proto/buf.gen.yaml", "-o", out], {
    stdio: "inherit",
    env: { ...process.env, PATH: `${join(process.cwd(), "node_modules", ".bin")}:${process.env.PATH}` },
  });
  execFileSync("diff", ["-r", join(out, "libs/proto/src/gen"), "libs/proto/src/gen"], { stdio: "inherit" });
  console.log("proto: lint clean, generated code is fresh");
} catch {
  console.error("proto: generated code is stale or lint failed; run `npm run proto:gen` and commit");
  process.exitCode = 1;
} finally {
  rmSync(out, { recursive: true, force: true });
}
