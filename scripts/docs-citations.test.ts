// The normative references live in docs/ (configuration, wire per provider, forge-mcp OAuth), and the
// code cites their sections. A person who clones the repository has nothing else, so a citation of a
// file outside it, or of a section that does not exist, is a broken promise. This test reads every
// source, test and doc once, in-process, and checks each citation against the headings it names.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, posix, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const TEXT = /\.(ts|mts|mjs|js|md)$/;

function walk(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (name === "node_modules" || name === "dist" || name.startsWith(".")) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, out);
    else if (TEXT.test(name)) out.push(path);
  }
  return out;
}

const packageDirs = readdirSync(join(ROOT, "packages")).flatMap((p) =>
  ["src", "test"].map((d) => join(ROOT, "packages", p, d)),
);
const files = [join(ROOT, "docs"), ...packageDirs]
  .filter((d) => {
    try {
      return statSync(d).isDirectory();
    } catch {
      return false;
    }
  })
  .flatMap((d) => walk(d))
  .concat(join(ROOT, "README.md"))
  .map((path) => ({ path: relative(ROOT, path).split("\\").join("/"), text: readFileSync(path, "utf8") }));

/** GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const line of markdown.replace(/```[\s\S]*?```/g, "").split("\n")) {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m?.[1]) continue;
    const base = m[1]
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

/** The section numbers a page's headings start with: `## 3. Endpoints` → 3, `### 3.1 Environments` → 3.1. */
function sectionsOf(markdown: string): Set<string> {
  const out = new Set<string>();
  for (const m of markdown.matchAll(/^#{1,6}\s+(\d+(?:\.\d+)*)\.?\s/gm)) if (m[1]) out.add(m[1]);
  return out;
}

const docs = new Map(files.filter((f) => f.path.endsWith(".md")).map((f) => [f.path, f.text]));

// Spelled in pieces so this file does not cite what it forbids.
const FORBIDDEN = [
  new RegExp(["\\.\\./", "shared/"].join("")),
  new RegExp(["shared/", "(spec|providers|forge)/"].join("")),
  new RegExp(["fact", "[ -]?sheet"].join(""), "i"),
];

describe("citations of the normative references", () => {
  it("never point outside the repository", () => {
    const found = files.flatMap((f) =>
      f.text
        .split("\n")
        .flatMap((line, i) =>
          FORBIDDEN.some((re) => re.test(line)) ? [`${f.path}:${i + 1}: ${line.trim()}`] : [],
        ),
    );
    expect(found).toEqual([]);
  });

  it("name a docs page and a numbered section that exist (docs/x.md §N)", () => {
    const broken: string[] = [];
    let checked = 0;
    for (const f of files) {
      for (const m of f.text.matchAll(/(docs\/[\w./-]+\.md) ((?:§[\d.]*\d(?:,? | and | or |\/)?)+)/g)) {
        const [, page, refs] = m;
        if (!page || !refs) continue;
        const text = docs.get(page);
        const sections = text ? sectionsOf(text) : new Set<string>();
        for (const ref of refs.match(/§[\d.]*\d/g) ?? []) {
          checked++;
          if (!text || !sections.has(ref.slice(1))) broken.push(`${f.path}: ${page} ${ref}`);
        }
      }
    }
    expect(broken).toEqual([]);
    expect(checked).toBeGreaterThan(100);
  });

  it("name a docs page and a heading anchor that exist (docs/x.md#anchor)", () => {
    const broken: string[] = [];
    for (const f of files) {
      if (f.path.endsWith(".md")) continue;
      for (const m of f.text.matchAll(/(docs\/[\w./-]+\.md)#([\w-]+)/g)) {
        const [, page, anchor] = m;
        const text = page ? docs.get(page) : undefined;
        if (!text || !anchor || !anchorsOf(text).has(anchor)) broken.push(`${f.path}: ${page}#${anchor}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it("links between the docs pages land on existing files and headings", () => {
    const broken: string[] = [];
    for (const [path, text] of docs) {
      if (!path.startsWith("docs/") && path !== "README.md") continue;
      for (const m of text.matchAll(/\]\(([^)\s]+?\.md)(?:#([^)\s]+))?\)/g)) {
        const [, target, anchor] = m;
        if (!target || /^[a-z]+:/.test(target)) continue;
        const resolved = posix.normalize(posix.join(posix.dirname(path), target));
        const linked = docs.get(resolved);
        if (linked === undefined) {
          if (!existsSync(join(ROOT, resolved))) broken.push(`${path}: ${target}`);
          continue;
        }
        if (anchor && !anchorsOf(linked).has(anchor)) broken.push(`${path}: ${target}#${anchor}`);
      }
    }
    expect(broken).toEqual([]);
  });
});
