import { createHash } from "node:crypto";

/** The longest slug before its hash, characters: paths and branch names stay readable. */
const MAX_SLUG = 60;

/**
 * A plan or task id as one branch-name component and directory name: lowercase `[a-z0-9._-]`, other
 * characters as `-`, starting with a letter or digit, no `..`, no `.lock` or `.` at the end. When that
 * changed the id, a short hash of the id is appended (`Feat/A` → `feat-a-3f2a1c`), so two ids never
 * share a slug. Never starts with `_`, which whilly's own directories (`_integration`) use.
 */
export function slugOf(id: string): string {
  let slug = id
    .toLowerCase()
    .replace(/[^a-z0-9._-]/g, "-")
    .replace(/\.{2,}/g, "-")
    .replace(/^[._-]+/, "")
    .replace(/\.lock$/, "-lock")
    .replace(/\.+$/, "")
    .slice(0, MAX_SLUG);
  slug = slug.replace(/\.+$/, "");
  if (slug === id && slug !== "") return slug;
  const hash = createHash("sha256").update(id).digest("hex").slice(0, 6);
  return slug === "" ? `x-${hash}` : `${slug}-${hash}`;
}
