// Local inputs of uploads: a file's bytes and name, a skill directory zipped with fflate, and
// content digests so an edited file or skill shows up as a change in the plan.
import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { basename, extname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { zipSync } from "fflate";

export function resolveSource(configDir: string, source: string): string {
  return isAbsolute(source) ? source : resolve(configDir, source);
}

export interface LocalFile {
  filename: string;
  bytes: Uint8Array;
  mimeType: string;
  sha256: string;
}

const MIME: Record<string, string> = {
  ".txt": "text/plain",
  ".md": "text/markdown",
  ".csv": "text/csv",
  ".json": "application/json",
  ".pdf": "application/pdf",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".html": "text/html",
  ".yaml": "application/yaml",
  ".yml": "application/yaml",
};

/** The uploaded filename is the basename of `source`, extension preserved (spec: File). */
export async function readLocalFile(configDir: string, source: string): Promise<LocalFile> {
  const path = resolveSource(configDir, source);
  const bytes = new Uint8Array(await readFile(path));
  return {
    filename: basename(path),
    bytes,
    mimeType: MIME[extname(path).toLowerCase()] ?? "application/octet-stream",
    sha256: sha256(bytes),
  };
}

export function sha256(data: Uint8Array | string): string {
  return createHash("sha256").update(data).digest("hex");
}

async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)).split(sep).join("/"))
    .filter(
      (p) => !p.split("/").some((part) => part === ".git" || part === "node_modules" || part === ".DS_Store"),
    )
    .sort();
}

export interface SkillPackage {
  /** Name from the SKILL.md frontmatter (the provider reads it from there too). */
  name: string;
  description?: string;
  zip: Uint8Array;
  /** Digest over paths and contents: stable across runs, changes when any file changes. */
  digest: string;
}

/**
 * Zips a skill directory. Entries sit at the archive root unless `folder` is given (provider_b's
 * version upload wants them under one top-level folder). A fixed mtime keeps the bytes stable.
 */
export async function packSkill(configDir: string, source: string, folder?: string): Promise<SkillPackage> {
  const dir = resolveSource(configDir, source);
  const files = await listFiles(dir);
  if (!files.includes("SKILL.md")) throw new Error(`skill directory ${source} has no SKILL.md at its root`);
  const hash = createHash("sha256");
  const entries: Record<string, [Uint8Array, { mtime: Date }]> = {};
  const mtime = new Date("2000-01-01T00:00:00Z");
  let skillMd = "";
  for (const rel of files) {
    const bytes = new Uint8Array(await readFile(join(dir, rel)));
    if (rel === "SKILL.md") skillMd = new TextDecoder().decode(bytes);
    hash.update(rel).update("\0").update(bytes).update("\0");
    entries[folder ? `${folder}/${rel}` : rel] = [bytes, { mtime }];
  }
  const front = parseFrontmatter(skillMd);
  const name = front.name ?? basename(dir);
  return {
    name,
    description: front.description,
    zip: zipSync(entries, { level: 6 }),
    digest: hash.digest("hex"),
  };
}

/** The `name` and `description` of a SKILL.md frontmatter block (simple `key: value` lines). */
export function parseFrontmatter(text: string): { name?: string; description?: string } {
  const match = /^---\r?\n([\s\S]*?)\r?\n---/.exec(text);
  if (!match) return {};
  const out: { name?: string; description?: string } = {};
  for (const line of match[1]!.split(/\r?\n/)) {
    const kv = /^(name|description)\s*:\s*(.*)$/.exec(line);
    if (kv) out[kv[1] as "name" | "description"] = kv[2]!.trim().replace(/^["']|["']$/g, "");
  }
  return out;
}

export function fileDigest(bytes: Uint8Array): string {
  return sha256(bytes);
}
