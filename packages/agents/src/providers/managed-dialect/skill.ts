// Skills: a local directory whose SKILL.md names the one top-level folder the upload uses.
import type { DesiredContext } from "../types.js";
import { readSkill } from "./local-files.js";
import { type Json, str, WireMappingError } from "./spec.js";

/** The declaration plus what decides a re-upload: the folder name and a digest of every file. */
export async function skillDesired(spec: Json, ctx: DesiredContext): Promise<Json> {
  const source = str(spec.source);
  if (!source) throw new WireMappingError("a skill needs source (the skill directory)");
  const bundle = await readSkill(ctx.configDir, source);
  return { ...spec, skill_name: bundle.name, content_digest: bundle.digest };
}

export function skillOrigin(spec: Json): "custom" | "official" {
  return spec.origin === "official" ? "official" : "custom";
}
