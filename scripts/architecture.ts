import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";

export interface SourceFile {
  /** Path relative to the scanned root, with `/` separators. */
  path: string;
  text: string;
  /** Relative imports, resolved to paths relative to the root (`.js` read as `.ts`). */
  imports: Array<{ target: string; typeOnly: boolean }>;
  /** Bare specifiers (packages and node: builtins). */
  packages: string[];
}

const IMPORT = /^\s*(import|export)\s+(type\s+)?(?:[^;]*?\s+from\s+)?["']([^"']+)["']/gms;

/** Every .ts file under root, with its imports read from the text (no compiler needed). */
export function readSources(root: string): SourceFile[] {
  return readdirSync(root, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".ts"))
    .map((entry) => {
      const file = join(entry.parentPath, entry.name);
      const text = readFileSync(file, "utf8");
      const imports: SourceFile["imports"] = [];
      const packages: string[] = [];
      for (const m of text.matchAll(IMPORT)) {
        const spec = m[3] ?? "";
        if (!spec.startsWith(".")) {
          packages.push(spec);
          continue;
        }
        const target = relative(root, resolve(dirname(file), spec)).replace(/\.js$/, ".ts");
        imports.push({ target: target.split(sep).join("/"), typeOnly: m[2] !== undefined });
      }
      return { path: relative(root, file).split(sep).join("/"), text, imports, packages };
    });
}

/** Cycles among value imports (type-only imports vanish at run time), each as a path of files. */
export function importCycles(files: SourceFile[]): string[] {
  const graph = new Map(
    files.map((f) => [f.path, f.imports.filter((i) => !i.typeOnly).map((i) => i.target)]),
  );
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const cycles: string[] = [];
  const visit = (file: string) => {
    state.set(file, "open");
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (!graph.has(next)) continue;
      if (state.get(next) === "open") cycles.push([...stack.slice(stack.indexOf(next)), next].join(" -> "));
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, "done");
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file);
  return cycles;
}

/** Code without line comments, so a comment that mentions fetch( or console.log( is not a call. */
export const withoutComments = (text: string) =>
  text.replace(/^\s*\/\/.*$/gm, "").replace(/\/\*[\s\S]*?\*\//g, "");
