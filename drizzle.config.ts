import { defineConfig } from "drizzle-kit";

/**
 * drizzle-kit reads this to generate migrations from the schema (no database needed):
 * `npx drizzle-kit generate --name <what_it_does>` from the repository root.
 */
export default defineConfig({
  dialect: "postgresql",
  schema: "./drizzle/src/schema.ts",
  out: "./drizzle/migrations",
});
