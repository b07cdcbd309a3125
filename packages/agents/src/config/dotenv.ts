import { existsSync, readFileSync } from "node:fs";
import { dirname, join, parse as parsePath } from "node:path";
import { parseEnv } from "node:util";

interface DotenvResult {
  values: Record<string, string>;
  /** Every folder where `.env` was looked for, nearest first (for "not found" messages). */
  searched: string[];
  found: string[];
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
  let dir = startDir;
  for (;;) {
    searched.push(dir);
    const candidate = join(dir, ".env");
    if (existsSync(candidate)) {
      found.push(candidate);
      layers.push(parseEnv(readFileSync(candidate, "utf8")) as Record<string, string>);
    }
    if (dir === root) break;
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  const values: Record<string, string> = {};
  for (const layer of layers.reverse()) Object.assign(values, layer);
  return { values, searched, found };
}
