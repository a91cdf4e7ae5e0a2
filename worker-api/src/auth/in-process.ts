import { Unauthorized } from "@whilly/core";
import type { AuthPort } from "../ports/auth.js";

/**
 * Auth for the in-process control plane of `whilly run`: the caller is this process, so worker routes
 * reads, plan creation and operator actions trust it (owner and version checks still apply) and registration is refused.
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
};
