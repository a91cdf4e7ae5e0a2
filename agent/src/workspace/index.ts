export {
  type CloneWorkspaces,
  type CloneWorkspacesOptions,
  DEFAULT_NETWORK_TIMEOUT_MS,
  openCloneWorkspaces,
} from "./clone.js";
export { DependencyConflict, WorkspaceUnavailable } from "./faults.js";
export type { FinishResult } from "./finish.js";
export { type GitResult, type GitRunner, gitRunner } from "./git.js";
export type { IntegrateOptions, IntegrationResult, IntegrationStepFailure } from "./integrate.js";
export {
  commitMessage,
  DEFAULT_MAX_FILE_BYTES,
  type LeftoversResult,
  type OversizedFile,
} from "./leftovers.js";
export {
  branchTip,
  checkBranchOption,
  commitArgs,
  currentBranch,
  dropWorktree,
  excludeWhillyDir,
  findRepository,
  gitTopLevel,
  isWorktreeAt,
  WHILLY_GIT_IDENTITY,
} from "./repo.js";
export { slugOf } from "./slug.js";
export { markPlan, planMark } from "./tip.js";
export type {
  CommittedWork,
  Delivered,
  Delivery,
  KeptWorkspace,
  PreparedWorkspace,
  PrepareOptions,
  TaskWorkspaces,
  WorkspaceTask,
  WorktreeBase,
  WorktreeStart,
} from "./types.js";
export { openWorkspaces, type Workspaces, type WorkspacesOptions } from "./workspaces.js";
