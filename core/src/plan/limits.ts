/**
 * Size limits checked at import, so an over-long value is refused with a message instead of failing
 * later at claim time. Ids match protocol v1's 256-character id fields (UTF-16 code units, as zod counts).
 */
export const MAX_ID_LENGTH = 256;

/** A task description may hold at most 64 KiB of UTF-8. */
export const MAX_DESCRIPTION_BYTES = 64 * 1024;

/**
 * The largest `version` a plan file may carry: the store keeps it in a Postgres `INTEGER`, and every
 * transition adds one.
 */
export const MAX_VERSION = 2_147_483_647;

/** JSON nested deeper than this inside a plan's extra fields is refused. */
export const MAX_NESTING = 64;
