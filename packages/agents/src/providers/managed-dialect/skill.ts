// Skills: a local directory whose SKILL.md names the one top-level folder the upload uses.

import { DeclarationError } from "../common/errors.js";
import { str } from "../common/handler-kit.js";
import { readSkill } from "../common/local-files.js";
import type { DesiredContext } from "../types.js";
import type { Json } from "./spec.js";

/**
 * What decides a re-upload, and nothing else: the folder name, a digest of every file and the
 * origin agents reference it by. The path, description and version label change nothing remote
 * (on provider_d a needless re-upload would even strand the old skill, which cannot be deleted).
 */
export async function skillDesired(spec: Json, ctx: DesiredContext): Promise<Json> {
  const source = str(spec.source);
  if (!source)
    throw new DeclarationError("managed.skill_without_source", "a skill needs source (the skill directory)");
  const bundle = await readSkill(ctx.configDir, source);
  return { skill_name: bundle.name, content_digest: bundle.digest, origin: skillOrigin(spec) };
}

export function skillOrigin(spec: Json): "custom" | "official" {
  return spec.origin === "official" ? "official" : "custom";
}
