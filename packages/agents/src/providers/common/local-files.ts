// Local inputs of uploads, for every adapter: a file's bytes, name and type; a skill directory
// (zipped with fflate for provider_a/b, as a file list for provider_c/d); and the content digests
// that make an edited file or skill show up as a change in the plan. Every path is read relative
// to agents.yaml, and a source that cannot be read at apply is an UnforeseeableError naming it.
import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { basename, extname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { UnforeseeableError } from "../unforeseeable.js";
import { DeclarationError } from "./errors.js";
import { parseFrontmatter } from "./frontmatter.js";

function resolveSource(configDir: string, source: string): string {
  return isAbsolute(source) ? source : resolve(configDir, source);
}

interface LocalFile {
  /** The uploaded filename: the basename of `source`, extension preserved (spec: File). */
  filename: string;
  bytes: Uint8Array;
  mimeType: string;
  /** Hex SHA-256 of the bytes. */
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

const unreadable = (what: string, error: unknown) =>
  new UnforeseeableError(
    "environment",
    `cannot read ${what} (${(error as NodeJS.ErrnoException).code ?? error})`,
  );

export async function readLocalFile(configDir: string, source: string): Promise<LocalFile> {
  const path = resolveSource(configDir, source);
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(await readFile(path));
  } catch (error) {
    throw unreadable(`file source "${source}"`, error);
  }
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

/** `sha256:<hex>` of some bytes (the form provider_c/d record for an uploaded file). */
export function digestBytes(bytes: Uint8Array): string {
  return `sha256:${sha256(bytes)}`;
}

/** A file inside a skill directory. */
interface DirectoryEntry {
  /** Path relative to the directory, `/`-separated. */
  path: string;
  bytes: Uint8Array;
}

const SKIPPED = new Set([".git", "node_modules", ".DS_Store"]);

/** Every regular file under `dir` (VCS folders, node_modules and .DS_Store left out), sorted by path. */
async function readDirectory(dir: string): Promise<DirectoryEntry[]> {
  try {
    const entries = await readdir(dir, { withFileTypes: true, recursive: true });
    const paths = entries
      .filter((e) => e.isFile())
      .map((e) => relative(dir, join(e.parentPath, e.name)).split(sep).join("/"))
      .filter((p) => !p.split("/").some((part) => SKIPPED.has(part)))
      .sort();
    return await Promise.all(
      paths.map(async (path) => ({ path, bytes: new Uint8Array(await readFile(join(dir, path))) })),
    );
  } catch (error) {
    throw unreadable(`skill directory "${dir}"`, error);
  }
}

export { parseFrontmatter };

async function readSkillDirectory(configDir: string, source: string) {
  const dir = resolveSource(configDir, source);
  const files = await readDirectory(dir);
  const skillMd = files.find((f) => f.path === "SKILL.md");
  if (!skillMd)
    throw new DeclarationError(
      "common.skill_without_skill_md",
      `skill "${source}" has no SKILL.md at its root`,
    );
  return { dir, files, front: parseFrontmatter(new TextDecoder().decode(skillMd.bytes)) };
}

export interface SkillPackage {
  /** Name from the SKILL.md frontmatter (the provider reads it from there too), else the folder's. */
  name: string;
  description?: string;
  zip: Uint8Array;
  /** Hex digest over paths and contents: stable across runs, changes when any file changes. */
  digest: string;
}

/**
 * A skill directory zipped (provider_a/b). Entries sit at the archive root unless `folder` is
 * given (provider_b's version upload wants them under one top-level folder). A fixed mtime keeps
 * the bytes stable.
 */
export async function packSkill(configDir: string, source: string, folder?: string): Promise<SkillPackage> {
  const { dir, files, front } = await readSkillDirectory(configDir, source);
  const hash = createHash("sha256");
  const entries: Record<string, [Uint8Array, { mtime: Date }]> = {};
  const mtime = new Date("2000-01-01T00:00:00Z");
  for (const file of files) {
    hash.update(file.path).update("\0").update(file.bytes).update("\0");
    entries[folder ? `${folder}/${file.path}` : file.path] = [file.bytes, { mtime }];
  }
  // fflate builds its Huffman tables when it is loaded: only the commands that upload a skill do.
  const { zipSync } = await import("fflate");
  return {
    name: front.name ?? basename(dir),
    description: front.description,
    zip: zipSync(entries, { level: 6 }),
    digest: hash.digest("hex"),
  };
}

export interface SkillBundle {
  /** SKILL.md frontmatter `name`: the single top-level folder the providers require. */
  name: string;
  files: DirectoryEntry[];
  /** `sha256:<hex>` over paths, sizes and contents. */
  digest: string;
}

/** A skill directory as a file list (provider_c/d upload the files, under the frontmatter name). */
export async function readSkill(configDir: string, source: string): Promise<SkillBundle> {
  const { files, front } = await readSkillDirectory(configDir, source);
  if (!front.name)
    throw new DeclarationError(
      "common.skill_md_without_name",
      `skill "${source}": SKILL.md frontmatter has no name`,
    );
  return { name: front.name, files, digest: digestFiles(files) };
}

function digestFiles(files: DirectoryEntry[]): string {
  const hash = createHash("sha256");
  for (const file of files) {
    hash.update(file.path).update("\0").update(String(file.bytes.byteLength)).update("\0").update(file.bytes);
  }
  return `sha256:${hash.digest("hex")}`;
}
