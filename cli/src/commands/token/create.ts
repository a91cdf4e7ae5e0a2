import type { Argv } from "yargs";
import type { CliContext } from "../../context.js";
import { UsageError } from "../../exit-codes.js";

/** Fresh ids drawn before giving up; with 64 random bits a second draw is already rare. */
const CREATE_ATTEMPTS = 5;

/**
 * `whilly token create --read-only [--label TEXT]`: mints a read-only token of the read API and stores
 * only its SHA-256 hash in the database this CLI uses (the control plane's `WHILLY_DATABASE_URL`).
 * stdout holds the token alone, shown this once (`TOKEN=$(whilly token create --read-only)`), or
 * `{id, token}` with `--json`; the id, for `whilly token revoke`, goes to stderr. Exit 2 without
 * `--read-only`: it is the only kind there is, and saying so keeps a later kind from surprising anyone.
 */
export function createTokenCommand(y: Argv, ctx: CliContext): Argv {
  return y.command(
    "create",
    "Mint a read-only token of the read API and print it once",
    (a) =>
      a
        .option("read-only", {
          type: "boolean",
          default: false,
          describe: "a token that only reads (required)",
        })
        .option("label", { type: "string", default: "", describe: "what the token is for, shown by list" })
        .option("json", { type: "boolean", default: false, describe: "print {id, token} as JSON" })
        .example(
          "TOKEN=$(whilly token create --read-only --label dashboard)",
          'then: curl -H "Authorization: Bearer $TOKEN" $URL/api/v1/plans',
        ),
    async (args) => {
      if (!args.readOnly) {
        throw new UsageError("whilly token create mints read-only tokens only: pass --read-only", {
          hint: "whilly token create --read-only --label dashboard",
        });
      }
      const store = await ctx.store();
      const { mintReadToken } = await import("@whilly/worker-api");
      for (let attempt = 0; attempt < CREATE_ATTEMPTS; attempt++) {
        const { id, token, tokenHash } = await mintReadToken();
        const stored = await store.createReadToken({ id, tokenHash, label: args.label });
        if (stored === undefined) continue;
        if (args.json) {
          ctx.io.out.write(`${JSON.stringify({ id, token })}\n`);
        } else {
          ctx.io.out.write(`${token}\n`);
          ctx.io.err.write(
            `created read-only token '${id}'; it is shown only now (revoke: whilly token revoke ${id}).\n`,
          );
        }
        return;
      }
      throw new Error(`no free token id after ${CREATE_ATTEMPTS} draws`);
    },
  );
}
