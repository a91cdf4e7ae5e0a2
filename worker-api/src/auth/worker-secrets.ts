/**
 * The shortest bootstrap token or shared worker token accepted, in characters. Either one lets its
 * holder join the cluster or act as any worker, so it must be too long to guess; `openssl rand -hex
 * 32` gives 64.
 */
export const MIN_WORKER_SECRET_LENGTH = 16;

/** How to make a strong secret, for messages. */
export const STRONG_SECRET_HOWTO = "make one with: openssl rand -hex 32";

/** The environment variables that hold a worker secret. */
export type WorkerSecretName = "WHILLY_WORKER_BOOTSTRAP_TOKEN" | "WHILLY_WORKER_TOKEN" | "WHILLY_ADMIN_TOKEN";

/**
 * What is wrong with a worker secret read from `name` (already trimmed), or `undefined` when it is
 * long enough. The message names the variable, its length (never its value) and how to make a strong one.
 */
export function workerSecretProblem(name: WorkerSecretName, secret: string): string | undefined {
  if (secret === "") return `${name} is not set`;
  if (secret.length >= MIN_WORKER_SECRET_LENGTH) return undefined;
  const length = `${secret.length} character${secret.length === 1 ? "" : "s"}`;
  return `${name} is too short (${length}); it must be at least ${MIN_WORKER_SECRET_LENGTH} random characters, ${STRONG_SECRET_HOWTO}`;
}
