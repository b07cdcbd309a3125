import { invalid } from "./errors.js";

interface SkillFileBytes {
  path: string;
  bytes: Uint8Array;
}

/** Skill names follow the provider's rule for the SKILL.md `name` (lowercase, digits, hyphens). */
const SKILL_NAME = /^[a-z0-9][a-z0-9-]{0,63}$/;

/** The `key: value` pairs of a SKILL.md YAML frontmatter (flat scalars only; quotes stripped). */
export function frontmatter(text: string): Record<string, string> {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  if (lines[0]?.trim() !== "---") throw invalid("SKILL.md: must start with a YAML frontmatter block (---)");
  const end = lines.indexOf("---", 1);
  const close = end > 0 ? end : lines.findIndex((l, i) => i > 0 && l.trim() === "---");
  if (close < 0) throw invalid("SKILL.md: frontmatter block is not closed with ---");
  const out: Record<string, string> = {};
  for (const line of lines.slice(1, close)) {
    const m = /^([A-Za-z0-9_-]+):\s*(.*)$/.exec(line);
    if (!m?.[1]) continue;
    out[m[1]] = (m[2] ?? "").trim().replace(/^(['"])(.*)\1$/, "$2");
  }
  return out;
}

/**
 * A skill upload: every file under one top-level directory, `<dir>/SKILL.md` present, and the
 * frontmatter `name` equal to `<dir>` (mismatch → 400).
 */
export function checkSkillTree(files: SkillFileBytes[]): {
  name: string;
  description: string;
  files: SkillFileBytes[];
} {
  if (files.length === 0) throw invalid("files: at least one file is required");
  const dirs = new Set<string>();
  for (const f of files) {
    const segments = f.path.split("/");
    if (segments.length < 2 || segments.some((s) => s === "" || s === "." || s === "..")) {
      throw invalid(`files: ${JSON.stringify(f.path)} must be "<dir>/<relative path>"`);
    }
    dirs.add(segments[0] as string);
  }
  if (dirs.size !== 1)
    throw invalid(`files: all files must sit under one top-level directory, got ${[...dirs].join(", ")}`);
  const dir = [...dirs][0] as string;
  const skillMd = files.find((f) => f.path === `${dir}/SKILL.md`);
  if (!skillMd) throw invalid(`files: ${dir}/SKILL.md is required at the top of the skill directory`);
  const meta = frontmatter(Buffer.from(skillMd.bytes).toString("utf8"));
  const name = meta.name;
  if (!name) throw invalid("SKILL.md: frontmatter must set name");
  if (name !== dir)
    throw invalid(
      `SKILL.md: frontmatter name ${JSON.stringify(name)} must equal the directory name ${JSON.stringify(dir)}`,
    );
  if (!SKILL_NAME.test(name))
    throw invalid(
      `SKILL.md: name ${JSON.stringify(name)} must be lowercase letters, digits and hyphens (max 64)`,
    );
  return { name, description: meta.description ?? "", files };
}
