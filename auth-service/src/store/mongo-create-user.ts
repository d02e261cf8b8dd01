import type { NewUser } from "../domain/ports.js";
import type { UserRecord } from "../domain/types.js";
import { guardMongo } from "./duplicates.js";
import { type Docs, fromDoc, type UserDoc } from "./mongo-docs.js";

/**
 * No transactions: namespace, user and primary e-mail are inserted in turn and the earlier
 * inserts are removed again when a later one conflicts.
 */
export async function createMongoUser(
  c: Pick<Docs, "users" | "emails" | "namespaces">,
  nextId: (sequence: string) => Promise<number>,
  input: NewUser,
): Promise<UserRecord> {
  const id = await nextId("users");
  const nsId = await nextId("namespaces");
  const name = input.username;
  await guardMongo(
    () =>
      c.namespaces.insertOne({
        _id: nsId,
        kind: "user",
        name: input.name,
        path: name,
        fullPath: name,
        fullPathLower: name.toLowerCase(),
        parentId: 0,
        ancestorIds: [],
        plan: "free",
        ownerId: id,
        createdAt: input.createdAt,
      }),
    "username",
  );
  const user: UserDoc = {
    _id: id,
    username: name,
    usernameLower: name.toLowerCase(),
    name: input.name,
    email: input.email,
    isAdmin: input.isAdmin,
    namespaceId: nsId,
    createdAt: input.createdAt,
    blocked: false,
    passwordHash: input.passwordHash ?? null,
  };
  try {
    await guardMongo(() => c.users.insertOne(user), "username");
    const emailId = await nextId("emails");
    await guardMongo(
      () =>
        c.emails.insertOne({
          _id: emailId,
          userId: id,
          email: input.email,
          emailLower: input.email.toLowerCase(),
          confirmedAt: input.createdAt,
          primary: true,
        }),
      "email",
    );
  } catch (err) {
    await c.users.deleteOne({ _id: id });
    await c.namespaces.deleteOne({ _id: nsId });
    throw err;
  }
  return fromDoc.user(user);
}
