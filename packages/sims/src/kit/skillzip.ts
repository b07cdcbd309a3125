import { unzipSync } from "fflate";
import { WireError } from "./errors.js";

export interface SkillPackage {
  /** `name` from the SKILL.md front matter, when it has one. */
  name?: string;
  description?: string;
  /** Entry paths as stored in the archive (directories excluded). */
  files: string[];
  /** Top-level folder every entry sits under, when there is exactly one and nothing at the root. */
  root?: string;
}

/** Reads a skill zip and its SKILL.md front matter; a broken archive is the caller's 400. */
export function readSkillZip(bytes: Uint8Array): SkillPackage {
  let entries: Record<string, Uint8Array>;
  try {
    entries = unzipSync(bytes);
  } catch {
    throw new WireError(400, "", "file is not a valid zip archive");
  }
  const files = Object.keys(entries).filter((p) => !p.endsWith("/"));
  if (files.length === 0) throw new WireError(400, "", "skill archive is empty");
  const tops = new Set(files.map((p) => (p.includes("/") ? p.slice(0, p.indexOf("/")) : "")));
  const root = tops.size === 1 && !tops.has("") ? [...tops][0] : undefined;
  const manifestPath = files.find((p) => p === "SKILL.md") ?? (root ? `${root}/SKILL.md` : undefined);
  const manifest = manifestPath ? entries[manifestPath] : undefined;
  if (!manifest) throw new WireError(400, "", "skill archive has no SKILL.md");
  const front = frontMatter(new TextDecoder().decode(manifest));
  return { files, ...(root ? { root } : {}), ...front };
}

function frontMatter(text: string): { name?: string; description?: string } {
  const block = /^---\r?\n([\s\S]*?)\r?\n---/.exec(text)?.[1];
  if (!block) return {};
  const field = (key: string) => {
    const m = new RegExp(`^${key}:\\s*(.+?)\\s*$`, "m").exec(block);
    return m?.[1]?.replace(/^["']|["']$/g, "");
  };
  const out: { name?: string; description?: string } = {};
  const name = field("name");
  const description = field("description");
  if (name) out.name = name;
  if (description) out.description = description;
  return out;
}
