import { existsSync } from "node:fs";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { basename, dirname, extname, relative, resolve } from "node:path";
import { slugOfIdea } from "@whilly/core";
import { UsageError } from "../../exit-codes.js";

/** A PRD file: where it is, and how messages and the plan name it (relative to the working directory). */
export type PrdFile = { readonly path: string; readonly shown: string };

/** The most of a PRD file read, bytes: more than a prompt takes, so the cut and its mark happen there. */
const MAX_PRD_READ_BYTES = 8 * 1024 * 1024;

/**
 * `<outputDir>/PRD-<slug>.md`, which `whilly init` writes.
 * @throws {UsageError} when it exists and `force` is not set (exit 2).
 */
export function newPrdFile(cwd: string, outputDir: string, slug: string, force: boolean): PrdFile {
  const path = resolve(cwd, outputDir, `PRD-${slug}.md`);
  const file = { path, shown: shown(cwd, path) };
  if (!force && existsSync(path)) {
    throw new UsageError(`${file.shown} already exists`, {
      hint: "pass --force to write over it, --slug to name another plan, or --from-prd to plan from it as it is",
    });
  }
  return file;
}

/**
 * Reads the PRD of `--from-prd`.
 * @throws {UsageError} naming `--from-prd` when the file cannot be read or is empty (exit 2).
 */
export async function readPrdFile(cwd: string, given: string): Promise<PrdFile & { readonly text: string }> {
  const path = resolve(cwd, given);
  let text: string;
  try {
    const bytes = await readFile(path);
    text = bytes.subarray(0, MAX_PRD_READ_BYTES).toString("utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === "ENOENT"
        ? "does not exist"
        : code === "EISDIR"
          ? "is a directory"
          : `cannot be read (${code})`;
    throw new UsageError(`--from-prd: ${given} ${why}`, { hint: "give the path of a PRD file (Markdown)" });
  }
  if (text.trim() === "")
    throw new UsageError(`--from-prd: ${given} is empty`, { hint: "write the PRD first" });
  return { path, shown: shown(cwd, path), text };
}

/** Writes the PRD whole or not at all (a temporary file renamed over it), making its directory. */
export async function writePrdFile(file: PrdFile, markdown: string): Promise<void> {
  await mkdir(dirname(file.path), { recursive: true });
  const temporary = `${file.path}.${process.pid}.tmp`;
  await writeFile(temporary, markdown.endsWith("\n") ? markdown : `${markdown}\n`);
  await rename(temporary, file.path);
}

/** Where the model's last answer is kept when it made no valid plan: beside the PRD. */
export function answerFileOf(file: PrdFile): PrdFile {
  const path = `${file.path.slice(0, file.path.length - extname(file.path).length)}.plan-answer.txt`;
  return {
    path,
    shown: `${file.shown.slice(0, file.shown.length - extname(file.shown).length)}.plan-answer.txt`,
  };
}

/** The slug a PRD file's name suggests: `docs/PRD-todo-app.md` → `todo-app`. */
export function slugOfPrdFile(given: string): string {
  const name = basename(given, extname(given)).replace(/^prd[-_ ]?/i, "");
  return slugOfIdea(name);
}

/** The PRD's title: its first `# ` heading, at most 200 characters; `undefined` when it has none. */
export function prdTitle(text: string): string | undefined {
  const heading = /^#[ \t]+(.+)$/m.exec(text)?.[1]?.trim();
  return heading === undefined || heading === "" ? undefined : heading.slice(0, 200);
}

function shown(cwd: string, path: string): string {
  const rel = relative(cwd, path);
  return rel.startsWith("..") || rel === "" ? path : rel;
}
