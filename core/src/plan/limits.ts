/**
 * Size limits checked at import, so an over-long value is refused with a message instead of failing
 * later at claim time. Ids match protocol v1's 256-character id fields (UTF-16 code units, as zod counts).
 */
export const MAX_ID_LENGTH = 256;

/** A task description may hold at most 64 KiB of UTF-8. */
export const MAX_DESCRIPTION_BYTES = 64 * 1024;

/** The largest value of a Postgres `INTEGER`, the column type of a task's `version` and `attempts`. */
export const MAX_INT4 = 2_147_483_647;

/**
 * The largest `version` a plan file may carry. The store keeps versions in a Postgres `INTEGER` and
 * every later transition counts up from the file's value (one per transition, two for a claim that
 * starts at once), with no end to how often a task may be claimed and released. One billion leaves
 * room for more than a billion transitions, decades of agent attempts even at one a second.
 */
export const MAX_VERSION = 1_000_000_000;

/** JSON nested deeper than this inside a plan's extra fields is refused. */
export const MAX_NESTING = 64;
