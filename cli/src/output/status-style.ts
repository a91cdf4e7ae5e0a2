import type { TaskStatus } from "@whilly/core";
import type { Style } from "../io.js";

/** The badge colour of each status (the seed's palette, spec section 1.6). */
export const STATUS_STYLE: Readonly<Record<TaskStatus, Style>> = {
  PENDING: "gray",
  CLAIMED: "cyan",
  IN_PROGRESS: "yellow",
  DONE: "green",
  FAILED: "red",
  SKIPPED: "dim",
};
