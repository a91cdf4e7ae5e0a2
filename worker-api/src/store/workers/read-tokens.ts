import { InvalidInput } from "@whilly/core";
import { readTokens } from "@whilly/schema";
import { and, asc, eq, isNull } from "drizzle-orm";
import type { Db } from "../db.js";
import { assertStorable } from "../text.js";

/** Lowercase hex SHA-256: the only form of a token the store keeps. */
const TOKEN_HASH = /^[0-9a-f]{64}$/;

/** A read-only token of the read API as stored: never the token, only its hash's owner row. */
export type ReadTokenRecord = {
  readonly id: string;
  readonly label: string;
  readonly createdAt: Date;
  /** When it was revoked; `undefined` while it is honoured. */
  readonly revokedAt: Date | undefined;
};

/**
 * Stores a new read-only token by the SHA-256 hex of its value.
 * @returns the token's row, or `undefined` when `id` is taken (draw another and retry).
 * @throws {InvalidInput} for a malformed hash or label.
 */
export async function createReadToken(
  db: Db,
  input: { id: string; tokenHash: string; label?: string | undefined },
): Promise<ReadTokenRecord | undefined> {
  if (!TOKEN_HASH.test(input.tokenHash)) {
    throw new InvalidInput("tokenHash", "a token hash must be 64 lowercase hex digits (SHA-256)");
  }
  assertStorable(input.label ?? "", "label");
  const [row] = await db
    .insert(readTokens)
    .values({ id: input.id, tokenHash: input.tokenHash, label: input.label ?? "" })
    .onConflictDoNothing({ target: readTokens.id })
    .returning();
  return row && toRecord(row);
}

/** @returns the live (not revoked) read token with this SHA-256 hex, or `undefined`. One index probe. */
export async function findReadTokenByHash(db: Db, tokenHash: string): Promise<ReadTokenRecord | undefined> {
  if (!TOKEN_HASH.test(tokenHash)) return undefined;
  const [row] = await db
    .select()
    .from(readTokens)
    .where(and(eq(readTokens.tokenHash, tokenHash), isNull(readTokens.revokedAt)));
  return row && toRecord(row);
}

/** @returns the live (not revoked) read token with this id, or `undefined`. One primary-key probe. */
export async function findReadTokenById(db: Db, id: string): Promise<ReadTokenRecord | undefined> {
  const [row] = await db
    .select()
    .from(readTokens)
    .where(and(eq(readTokens.id, id), isNull(readTokens.revokedAt)));
  return row && toRecord(row);
}

/** Every read token, revoked ones included, oldest first. */
export async function listReadTokens(db: Db): Promise<ReadTokenRecord[]> {
  const rows = await db.select().from(readTokens).orderBy(asc(readTokens.createdAt), asc(readTokens.id));
  return rows.map(toRecord);
}

/**
 * Revokes a read token at once: its next request gets 401.
 * @returns `found: false` for an unknown id; `wasLive: false` when it was already revoked.
 */
export async function revokeReadToken(db: Db, id: string): Promise<{ found: boolean; wasLive: boolean }> {
  const [row] = await db
    .select({ revokedAt: readTokens.revokedAt })
    .from(readTokens)
    .where(eq(readTokens.id, id));
  if (!row) return { found: false, wasLive: false };
  if (row.revokedAt !== null) return { found: true, wasLive: false };
  await db.update(readTokens).set({ revokedAt: new Date() }).where(eq(readTokens.id, id));
  return { found: true, wasLive: true };
}

function toRecord(row: typeof readTokens.$inferSelect): ReadTokenRecord {
  return {
    id: row.id,
    label: row.label,
    createdAt: row.createdAt,
    revokedAt: row.revokedAt ?? undefined,
  };
}
