import { existsSync, readFileSync } from "node:fs";
import { dirname, join, parse as parsePath } from "node:path";
import { parseEnv } from "node:util";
import type { Diagnostic } from "./diagnostics.js";
import { decodeUtf8 } from "./utf8.js";

interface DotenvResult {
  values: Record<string, string>;
  /** Every folder where `.env` was looked for, nearest first (for "not found" messages). */
  searched: string[];
  found: string[];
  /** A `.env` that is not UTF-8, refused at its first bad byte (its variables are not read). */
  diagnostics: Diagnostic[];
}

/** The project root: the nearest folder holding `.git`, else the filesystem root. */
function projectRoot(startDir: string): string {
  let dir = startDir;
  for (;;) {
    if (existsSync(join(dir, ".git"))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return parsePath(dir).root;
    dir = parent;
  }
}

/**
 * Load `.env` files from `startDir` upward to the project root. A nearer file wins over a
 * farther one; the caller lets the process environment win over both.
 */
export function loadDotenv(startDir: string): DotenvResult {
  const root = projectRoot(startDir);
  const searched: string[] = [];
  const found: string[] = [];
  const layers: Record<string, string>[] = [];
  const diagnostics: Diagnostic[] = [];
  let dir = startDir;
  for (;;) {
    searched.push(dir);
    const candidate = join(dir, ".env");
    if (existsSync(candidate)) {
      found.push(candidate);
      // Decoded strictly, and without a leading BOM (Windows editors write one; parseEnv would
      // take it as part of the first variable's name, and that variable would be lost).
      const decoded = decodeUtf8(readFileSync(candidate), candidate);
      if ("diagnostic" in decoded) diagnostics.push(decoded.diagnostic);
      else layers.push(parseEnv(decoded.text.replace(/^\uFEFF/, "")) as Record<string, string>);
    }
    if (dir === root) break;
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  const values: Record<string, string> = {};
  for (const layer of layers.reverse()) Object.assign(values, layer);
  return { values, searched, found, diagnostics };
}
