// A SKILL.md frontmatter block, read apart from the rest of local-files.ts (zipping, uploads), so
// that the configuration rules that check it do not load that code.
import { parse as parseYaml } from "yaml";

/** The `name` and `description` of a SKILL.md frontmatter block. */
export function parseFrontmatter(text: string): { name?: string; description?: string } {
  const match = /^---\r?\n([\s\S]*?)\r?\n---/.exec(text);
  if (!match?.[1]) return {};
  const out: { name?: string; description?: string } = {};
  try {
    const data = parseYaml(match[1]) as Record<string, unknown> | null;
    for (const key of ["name", "description"] as const)
      if (typeof data?.[key] === "string") out[key] = data[key] as string;
    return out;
  } catch {
    // Not valid YAML (e.g. an unquoted colon in a description): read plain `key: value` lines.
    for (const line of match[1].split(/\r?\n/)) {
      const kv = /^(name|description)\s*:\s*(.*)$/.exec(line);
      if (kv) out[kv[1] as "name" | "description"] = kv[2]!.trim().replace(/^["']|["']$/g, "");
    }
    return out;
  }
}
