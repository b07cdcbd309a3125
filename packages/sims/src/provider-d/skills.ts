import type { Router } from "express";
import { unzipSync } from "fflate";
import { fileBytes, readMultipart } from "../core/multipart.js";
import { lookup, param } from "../managed/common.js";
import { invalid } from "../managed/errors.js";
import { checkSkillTree } from "../managed/skill-files.js";
import type { Kit, Obj } from "../managed/state.js";

const ONE_ZIP = "only one zip file is supported";

/**
 * provider_d skills: create (multipart `files` = exactly one zip whose entries sit under one folder
 * named like the SKILL.md `name`) and get. No list, update, versions or delete: those paths 404.
 */
export function skillRoutes(router: Router, kit: Kit): void {
  router.post("/skills", async (req, res) => {
    const form = await readMultipart(req);
    if (form.getAll("files[]").length) throw invalid(`files: ${ONE_ZIP}`);
    const parts = await fileBytes(form, "files");
    const zip = parts[0];
    if (!zip || parts.length !== 1) throw invalid(`files: ${ONE_ZIP}`);
    let entries: Record<string, Uint8Array>;
    try {
      entries = unzipSync(zip.bytes);
    } catch {
      throw invalid(`files: ${JSON.stringify(zip.name)} is not a valid zip archive`);
    }
    const files = Object.entries(entries)
      .filter(([path]) => !path.endsWith("/"))
      .map(([path, bytes]) => ({ path, bytes }));
    const tree = checkSkillTree(files);
    const now = kit.now();
    const skill: Obj = {
      id: kit.newId("skill"),
      type: "skill",
      name: tree.name,
      display_title: tree.name,
      description: tree.description,
      source: "custom",
      latest_version: "1",
      created_at: now,
      updated_at: now,
    };
    const s = kit.state();
    s.skills.set(skill.id, skill);
    // Kept as a single version so /_sim/state shows the uploaded files like provider_c's.
    s.skillVersions.set(`${skill.id}@1`, {
      id: "1",
      type: "skill_version",
      skill_id: skill.id,
      version: "1",
      name: tree.name,
      created_at: now,
    });
    s.skillFiles.set(
      `${skill.id}@1`,
      files.map((f) => ({ path: f.path, content_base64: Buffer.from(f.bytes).toString("base64") })),
    );
    res.json(skill);
  });

  router.get("/skills/:id", (req, res) => {
    res.json(lookup(kit.state().skills, param(req, "id"), "skill"));
  });
}
