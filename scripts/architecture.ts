import { readdirSync, readFileSync } from "node:fs";
import { join, posix, relative, sep } from "node:path";

export interface Import {
  /** Relative imports: the path relative to the scanned root (`.js` read as `.ts`); packages: the specifier. */
  target: string;
  /** `import type`, `export type`, or `import("…")` in a type position: gone at run time. */
  typeOnly: boolean;
  /** An `import("…")` expression rather than a declaration. */
  dynamic: boolean;
}

export interface SourceFile {
  /** Path relative to the scanned root, with `/` separators. */
  path: string;
  text: string;
  /** Relative imports, resolved against the root. */
  imports: Import[];
  /** Bare specifiers (packages and node: builtins). */
  packages: Import[];
  /** `import(…)` expressions whose specifier is not a string literal: nothing here can follow them. */
  opaque: string[];
}

const IMPORT = /^\s*(import|export)\s+(type\s+)?(?:[^;]*?\s+from\s+)?["']([^"']+)["']/gms;
/** `import(` as an expression (not `.import(`), with what follows up to the end of its first argument. */
const DYNAMIC = /(?<![\w$.])import\s*\(\s*([^,)]*)/g;
const LITERAL = /^(["'])([^"'`]*)\1$|^`([^`$]*)`$/;
/** What stands before `import(` when it names a type: `typeof`, an annotation, a union, a generic, an alias. */
const TYPE_POSITION = /(typeof|[:|&<]|\btype\s+[\w$]+\s*=)\s*$/;

/** Reads one file's imports from its text (no compiler needed). */
export function parseSource(path: string, text: string): SourceFile {
  const imports: Import[] = [];
  const packages: Import[] = [];
  const opaque: string[] = [];
  const add = (spec: string, typeOnly: boolean, dynamic: boolean) => {
    if (!spec.startsWith(".")) {
      packages.push({ target: spec, typeOnly, dynamic });
      return;
    }
    const target = posix.join(posix.dirname(path), spec).replace(/\.js$/, ".ts");
    imports.push({ target, typeOnly, dynamic });
  };
  for (const m of text.matchAll(IMPORT)) add(m[3] ?? "", m[2] !== undefined, false);
  const code = withoutComments(text);
  for (const m of code.matchAll(DYNAMIC)) {
    const argument = (m[1] ?? "").trim();
    const literal = LITERAL.exec(argument);
    const typeOnly = TYPE_POSITION.test(code.slice(Math.max(0, m.index - 40), m.index));
    if (literal) add(literal[2] ?? literal[3] ?? "", typeOnly, true);
    else opaque.push(`import(${argument})`);
  }
  return { path, text, imports, packages, opaque };
}

/** Every .ts file under root, with its imports. */
export function readSources(root: string): SourceFile[] {
  return readdirSync(root, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".ts"))
    .map((entry) => {
      const file = join(entry.parentPath, entry.name);
      return parseSource(relative(root, file).split(sep).join("/"), readFileSync(file, "utf8"));
    });
}

/**
 * Cycles among imports, each as a path of files. Type-only imports count too: they vanish at run
 * time, but a loop of types still ties two files into one unit that neither can be read without.
 */
export function importCycles(files: SourceFile[]): string[] {
  const graph = new Map(files.map((f) => [f.path, f.imports.map((i) => i.target)]));
  return cyclesOf(graph);
}

function cyclesOf(graph: Map<string, Iterable<string>>): string[] {
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const cycles: string[] = [];
  const visit = (node: string) => {
    state.set(node, "open");
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (state.get(next) === "open") cycles.push([...stack.slice(stack.indexOf(next)), next].join(" -> "));
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, "done");
  };
  for (const node of graph.keys()) if (!state.has(node)) visit(node);
  return cycles;
}

/** A file's unit inside `folder` ("" is src/): the subfolder or file directly below it. */
export function unitOf(path: string, folder = ""): string {
  const rest = folder ? path.slice(folder.length + 1) : path;
  return rest.includes("/") ? rest.slice(0, rest.indexOf("/")) : rest;
}

/** Imports that point from a unit to a higher one (or to a unit the table does not place). */
export function upward(files: SourceFile[], layers: string[][], folder = ""): string[] {
  const rank = new Map(layers.flatMap((units, i) => units.map((u) => [u, i] as const)));
  const inside = (p: string) => !folder || p.startsWith(`${folder}/`);
  return files
    .filter((f) => inside(f.path))
    .flatMap((f) =>
      f.imports
        .filter((i) => inside(i.target))
        .filter((i) => {
          const from = rank.get(unitOf(f.path, folder));
          const to = rank.get(unitOf(i.target, folder));
          return (
            unitOf(i.target, folder) !== unitOf(f.path, folder) &&
            (from === undefined || to === undefined || to >= from)
          );
        })
        .map((i) => `${f.path} imports ${i.target}`),
    );
}

export function unplaced(files: SourceFile[], layers: string[][], folder = ""): string[] {
  const placed = new Set(layers.flat());
  const inside = files.filter((f) => !folder || f.path.startsWith(`${folder}/`));
  return [...new Set(inside.map((f) => unitOf(f.path, folder)))].filter((u) => !placed.has(u));
}

/** Every folder that holds a subfolder, the root ("") included. */
export function foldersWithSubfolders(files: SourceFile[]): string[] {
  const out = new Set<string>();
  for (const f of files) {
    const parts = f.path.split("/");
    for (let i = 1; i < parts.length; i++) out.add(parts.slice(0, i - 1).join("/"));
  }
  return [...out].sort();
}

/**
 * Loops between the units of one folder (its subfolders and files), type-only imports included:
 * a folder whose parts import each other around a loop has no layers, even when no two files do.
 */
export function unitCycles(files: SourceFile[], folder: string): string[] {
  const inside = (p: string) => !folder || p.startsWith(`${folder}/`);
  const known = new Set(files.map((f) => f.path));
  const graph = new Map<string, Set<string>>();
  for (const f of files.filter((x) => inside(x.path))) {
    const from = unitOf(f.path, folder);
    const edges = graph.get(from) ?? new Set<string>();
    graph.set(from, edges);
    for (const i of f.imports)
      if (inside(i.target) && known.has(i.target) && unitOf(i.target, folder) !== from)
        edges.add(unitOf(i.target, folder));
  }
  return cyclesOf(graph).map((c) => (folder ? `${folder}/: ${c}` : c));
}

/**
 * Files that reach the network without a row in `allowed` (path → the packages it may use and
 * why). Reaching is a value import of one of `network` (static or dynamic) or a `fetch(` call.
 */
export function networkOffenders(
  files: SourceFile[],
  network: string[],
  allowed: Record<string, { reaches: string[]; why: string }>,
): string[] {
  return files.flatMap((f) => {
    const may = allowed[f.path]?.reaches ?? [];
    const used = f.packages.filter((p) => !p.typeOnly && network.includes(p.target)).map((p) => p.target);
    if (FETCH_CALL.test(withoutComments(f.text))) used.push("fetch");
    return [...new Set(used)].filter((u) => !may.includes(u)).map((u) => `${f.path} reaches ${u}`);
  });
}

/**
 * Files outside `home` (a folder) that import a package `forbidden` matches, type-only imports
 * included: one line per import, "path imports specifier".
 */
export function importsOutside(files: SourceFile[], home: string, forbidden: RegExp): string[] {
  return files
    .filter((f) => !f.path.startsWith(`${home}/`))
    .flatMap((f) =>
      f.packages.filter((p) => forbidden.test(p.target)).map((p) => `${f.path} imports ${p.target}`),
    );
}

/** Dynamic imports the guard cannot follow, unless `allowed` (path → why) names the file. */
export function opaqueOffenders(files: SourceFile[], allowed: Record<string, string>): string[] {
  return files
    .filter((f) => f.opaque.length && !allowed[f.path])
    .flatMap((f) => f.opaque.map((o) => `${f.path}: ${o}`));
}

export const FETCH_CALL = /(^|[^\w.])fetch\s*\(/m;

/** Code without line comments, so a comment that mentions fetch( or console.log( is not a call. */
export const withoutComments = (text: string) =>
  text.replace(/^\s*\/\/.*$/gm, "").replace(/\/\*[\s\S]*?\*\//g, "");

/** Every folder under root, relative to it, with `/` separators (the root itself left out). */
export function foldersUnder(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (!entry.isDirectory() || entry.name === "node_modules") continue;
      const full = join(dir, entry.name);
      out.push(relative(root, full).split(sep).join("/"));
      walk(full);
    }
  };
  walk(root);
  return out.sort();
}

/**
 * The test folders that mirror no source folder: a test sits in the folder of the module it tests,
 * so a reader of `src/plan/diff.ts` finds `test/plan/diff.test.ts`. Only the named cross-cutting
 * folders (and whatever lies under them) and data folders named `dataFolder` (at any depth, with
 * what lies under them) stand outside the mirror.
 */
export function unmirrored(
  testFolders: string[],
  srcFolders: string[],
  crossCutting: string[],
  dataFolder: string,
): string[] {
  const src = new Set(srcFolders);
  return testFolders.filter((folder) => {
    const parts = folder.split("/");
    if (crossCutting.includes(parts[0] ?? "") || parts.includes(dataFolder)) return false;
    return !src.has(folder);
  });
}
