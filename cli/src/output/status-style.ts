import type { TaskStatus } from "@whilly/core";
import type { Style } from "../io.js";

/** The badge colour of each status (whilly 4.x's palette). */
export const STATUS_STYLE: Readonly<Record<TaskStatus, Style>> = {
  PENDING: "gray",
  CLAIMED: "cyan",
  IN_PROGRESS: "yellow",
  DONE: "green",
  FAILED: "red",
  SKIPPED: "dim",
};
