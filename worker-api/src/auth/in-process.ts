import { Unauthorized } from "@whilly/core";
import type { AuthPort } from "../ports/auth.js";
import { randomUrlSafe, utf8 } from "./secrets.js";
import { DEFAULT_SESSION_TTL_MS } from "./session.js";
import { sessionAuth } from "./session-auth.js";

// The caller is this process, so any session it opens is an admin's; the key lives as long as the process.
const IN_PROCESS_KEY = randomUrlSafe(32);
const sessions = sessionAuth({
  signingKey: async () => utf8(IN_PROCESS_KEY),
  adminToken: undefined,
  publicRead: true,
  ttlMs: DEFAULT_SESSION_TTL_MS,
});

/**
 * Auth for the in-process control plane of `whilly run`: the caller is this process, so worker routes
 * reads, plan creation and operator actions trust it (owner and version checks still apply) and registration is refused.
 * A session it opens is an admin's, signed with a key of this process; its cookie is never needed to read.
 */
export const inProcessAuth: AuthPort = {
  screenWorker: async () => {},
  authenticateWorker: async () => ({ workerId: undefined }),
  authenticateBootstrap: async () => {
    throw new Unauthorized("registration is not available in-process", { credential: "bootstrap" });
  },
  issueWorkerToken: async () => {
    throw new Unauthorized("registration is not available in-process", { credential: "bootstrap" });
  },
  authenticateReader: async () => {},
  authenticatePlanWriter: async () => ({ kind: "admin" }),
  authenticateAdmin: async () => {},
  openSession: () => sessions.openAdminSession(),
  openAdminSession: () => sessions.openAdminSession(),
  authenticateSession: async () => {},
};
