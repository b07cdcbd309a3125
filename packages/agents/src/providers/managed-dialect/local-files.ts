// Local bytes for uploads: skill directories and single files, read relative to agents.yaml,
// with a content digest so an edited file or skill shows up as a change in the plan.
import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { basename, isAbsolute, join, relative, resolve, sep } from "node:path";
import { parse as parseYaml } from "yaml";
import { WireMappingError } from "./spec.js";

export interface LocalFile {
  /** Path relative to the skill directory, `/`-separated. */
  path: string;
  bytes: Uint8Array;
}

export function resolveSource(configDir: string, source: string): string {
  return isAbsolute(source) ? source : resolve(configDir, source);
}

export async function readLocalFile(
  configDir: string,
  source: string,
): Promise<{ name: string; bytes: Uint8Array }> {
  const path = resolveSource(configDir, source);
  try {
    return { name: basename(path), bytes: new Uint8Array(await readFile(path)) };
  } catch (error) {
    throw new WireMappingError(
      `cannot read file source "${source}" (${(error as NodeJS.ErrnoException).code ?? error})`,
    );
  }
}

/** Every regular file under `dir`, sorted by path so digests and uploads are deterministic. */
export async function readDirectory(dir: string): Promise<LocalFile[]> {
  const out: LocalFile[] = [];
  async function walk(current: string): Promise<void> {
    const entries = await readdir(current, { withFileTypes: true });
    for (const entry of entries) {
      if (entry.name === ".DS_Store") continue;
      const full = join(current, entry.name);
      if (entry.isDirectory()) await walk(full);
      else if (entry.isFile())
        out.push({
          path: relative(dir, full).split(sep).join("/"),
          bytes: new Uint8Array(await readFile(full)),
        });
    }
  }
  try {
    await walk(dir);
  } catch (error) {
    throw new WireMappingError(
      `cannot read skill directory "${dir}" (${(error as NodeJS.ErrnoException).code ?? error})`,
    );
  }
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

export interface SkillBundle {
  /** SKILL.md frontmatter `name`: the single top-level folder the providers require. */
  name: string;
  files: LocalFile[];
  digest: string;
}

export async function readSkill(configDir: string, source: string): Promise<SkillBundle> {
  const dir = resolveSource(configDir, source);
  const files = await readDirectory(dir);
  const skillMd = files.find((f) => f.path === "SKILL.md");
  if (!skillMd) throw new WireMappingError(`skill "${source}" has no SKILL.md at its root`);
  const name = frontmatterName(new TextDecoder().decode(skillMd.bytes));
  if (!name) throw new WireMappingError(`skill "${source}": SKILL.md frontmatter has no name`);
  return { name, files, digest: digestFiles(files) };
}

export function frontmatterName(markdown: string): string | undefined {
  const match = /^---\r?\n([\s\S]*?)\r?\n---/.exec(markdown);
  if (!match?.[1]) return undefined;
  try {
    const data = parseYaml(match[1]) as unknown;
    if (data && typeof data === "object" && typeof (data as { name?: unknown }).name === "string")
      return (data as { name: string }).name;
  } catch {
    return undefined;
  }
  return undefined;
}

export function digestFiles(files: LocalFile[]): string {
  const hash = createHash("sha256");
  for (const file of files) {
    hash.update(file.path).update("\0").update(String(file.bytes.byteLength)).update("\0").update(file.bytes);
  }
  return `sha256:${hash.digest("hex")}`;
}

export function digestBytes(bytes: Uint8Array): string {
  return `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
}
