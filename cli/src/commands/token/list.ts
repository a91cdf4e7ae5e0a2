import type { Argv } from "yargs";
import type { CliContext } from "../../context.js";
import { renderTable } from "../../output/table.js";

/** `whilly token list [--json]`: every read-only token by id, label, creation and revocation time; never a token. */
export function listTokensCommand(y: Argv, ctx: CliContext): Argv {
  return y.command(
    "list",
    "List read-only tokens (ids, labels, whether revoked)",
    (a) => a.option("json", { type: "boolean", default: false, describe: "print the tokens as JSON" }),
    async (args) => {
      const store = await ctx.store({ mustExist: true });
      const tokens = await store.listReadTokens();
      if (args.json) {
        const rows = tokens.map((t) => ({
          id: t.id,
          label: t.label,
          created_at: t.createdAt.toISOString(),
          revoked_at: t.revokedAt?.toISOString() ?? null,
        }));
        ctx.io.out.write(`${JSON.stringify({ tokens: rows })}\n`);
        return;
      }
      if (tokens.length === 0) {
        ctx.io.out.write("no read-only tokens; mint one with: whilly token create --read-only\n");
        return;
      }
      const rows = tokens.map((t) => [
        t.id,
        t.label,
        t.createdAt.toISOString(),
        t.revokedAt === undefined ? "live" : `revoked ${t.revokedAt.toISOString()}`,
      ]);
      ctx.io.out.write(renderTable(["ID", "LABEL", "CREATED", "STATE"], rows));
    },
  );
}
