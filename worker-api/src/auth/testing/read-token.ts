import { mintReadToken } from "../read-token.js";

/**
 * Mints a read-only token and stores its hash, as `whilly token create --read-only` does.
 * @returns the token's id and its secret (what a reader presents).
 */
export async function storedReadToken(
  store: { createReadToken(input: { id: string; tokenHash: string; label?: string }): Promise<unknown> },
  label?: string,
): Promise<{ id: string; token: string }> {
  const minted = await mintReadToken();
  await store.createReadToken({
    id: minted.id,
    tokenHash: minted.tokenHash,
    ...(label === undefined ? {} : { label }),
  });
  return { id: minted.id, token: minted.token };
}
