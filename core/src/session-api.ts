import { z } from "zod";

/**
 * `POST /api/v1/session` 200 body (docs/protocol.md#browser-sessions): what the session cookie set
 * with it grants, and until when (ISO 8601).
 */
export const sessionResponseSchema = z.object({
  role: z.enum(["admin", "read"]),
  expires_at: z.string(),
});
export type SessionResponse = z.infer<typeof sessionResponseSchema>;

/** `POST /api/v1/session/redeem` request body: the one-time code of `whilly run --ui`'s link. */
export const redeemRequestSchema = z.strictObject({ code: z.string().min(1).max(200) });

/** `POST /api/v1/session/redeem` 200 body: an admin session, and the admin token for operator actions. */
export const redeemResponseSchema = sessionResponseSchema.extend({
  role: z.literal("admin"),
  token: z.string(),
});
export type RedeemResponse = z.infer<typeof redeemResponseSchema>;
