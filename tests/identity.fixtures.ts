import { type RunningSystem, type SystemOptions, startSystem } from "./harness.js";
import { type SeededUser, seedUser } from "./seed.js";

/**
 * What the identity and administration suites over the public REST API share
 * (tests/identity-users-tokens.test.ts and tests/identity-groups-projects.test.ts): the whole
 * system with three users, Alice (Alice Liddell), Bob and Carol, none of them an admin.
 */

export interface IdentitySystem {
  system: RunningSystem;
  alice: SeededUser;
  bob: SeededUser;
  carol: SeededUser;
}

/** The whole system with Alice, Bob and Carol seeded by the admin; stopped again if seeding fails. */
export async function startIdentitySystem(options: SystemOptions = {}): Promise<IdentitySystem> {
  const system = await startSystem(options);
  try {
    const alice = await seedUser(system.url, system.adminToken, { username: "alice", name: "Alice Liddell" });
    const bob = await seedUser(system.url, system.adminToken, { username: "bob" });
    const carol = await seedUser(system.url, system.adminToken, { username: "carol" });
    return { system, alice, bob, carol };
  } catch (err) {
    await system.stop();
    throw err;
  }
}
