export { offlineEvents, plansWithReleases, runSweep, type SweepResult } from "./run-sweep.js";
export { type Sweeper, type SweeperOptions, startSweeper } from "./sweeper.js";
