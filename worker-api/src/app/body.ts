import { InvalidInput } from "@whilly/core";
import type { Context } from "hono";
import type { z } from "zod";

/**
 * Reads and validates a JSON request body.
 * @throws {InvalidInput} naming the first bad field, e.g. `version: expected a non-negative integer`.
 */
export async function readBody<S extends z.ZodType>(c: Context, schema: S): Promise<z.infer<S>> {
  let raw: unknown;
  try {
    raw = await c.req.json();
  } catch {
    throw new InvalidInput("body", "request body must be a JSON object");
  }
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((issue) => {
    const path = issue.path.join(".") || "body";
    return `${path}: ${issue.message}`;
  });
  const first = parsed.error.issues[0]?.path.join(".") || "body";
  throw new InvalidInput(first, `invalid request body: ${issues.join("; ")}`);
}
