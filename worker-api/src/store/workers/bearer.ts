import { workers } from "@whilly/schema";
import { type SQL, sql } from "drizzle-orm";
import type { PresentedBearer } from "./presented-bearer.js";

// The SQL-free half lives apart so the HTTP layer can name it through the port without loading drizzle.
export { BearerNotStored, type PresentedBearer } from "./presented-bearer.js";

/**
 * SQL true when `bearer` is stored for `workerId` (one probe of the token-hash index), or plain true
 * without a bearer, for callers that authenticated otherwise.
 */
export function bearerHeld(bearer: PresentedBearer | undefined, workerId: string): SQL {
  if (bearer === undefined) return sql`true`;
  return sql`EXISTS (SELECT 1 FROM ${workers} WHERE token_hash = ${bearer.tokenHash} AND worker_id = ${workerId})`;
}
