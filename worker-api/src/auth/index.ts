export { readBearer } from "./bearer.js";
export { LEGACY_TOKEN_WARNING } from "./legacy-warning.js";
export { mintReadToken, READ_TOKEN_PREFIX } from "./read-token.js";
export { constantTimeEqual, randomUrlSafe, sameSecret, sha256Hex } from "./secrets.js";
export { deriveSigningKey, MIN_SIGNING_SECRET_LENGTH } from "./signing-key.js";
export { createTokenAuth, type TokenAuthOptions } from "./token-auth.js";
export { newWorkerId } from "./worker-id.js";
export { MIN_WORKER_SECRET_LENGTH, workerSecretProblem } from "./worker-secrets.js";
export { mintWorkerToken, TOKEN_ISSUER, verifyWorkerToken } from "./worker-token.js";
