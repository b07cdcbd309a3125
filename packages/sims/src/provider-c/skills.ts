import type { Router } from "express";
import { zipSync } from "fflate";
import { fileBytes, readMultipart } from "../core/multipart.js";
import { deleted, lookup, param } from "../managed/common.js";
import { invalid, notFound } from "../managed/errors.js";
import { pageParams, paginate, queryString } from "../managed/http.js";
import { checkSkillTree } from "../managed/skill-files.js";
import type { Kit, Obj } from "../managed/state.js";

const BUILTIN_CREATED = "2025-10-16T00:00:00.000Z";
/** The provider's own catalog (`source.type: "anthropic"`), listed next to custom skills. */
const BUILTIN_SKILLS: Obj[] = ["docx", "pdf", "pptx", "xlsx"].map((name) => ({
  id: name,
  type: "skill",
  display_name: name,
  description: `Built-in ${name} skill`,
  latest_version_id: "latest",
  source: { type: "anthropic" },
  created_at: BUILTIN_CREATED,
  updated_at: BUILTIN_CREATED,
}));

/** Skills on provider_c: multipart `files[]` (one part per file named `<dir>/<path>`), versions, zip download. */
export function skillRoutes(router: Router, kit: Kit): void {
  const skill = (id: string) => lookup(kit.state().skills, id, "skill");

  async function readUpload(req: Parameters<Parameters<Router["post"]>[1]>[0]) {
    const form = await readMultipart(req);
    if (form.getAll("files").length) throw invalid(`files: send one "files[]" part per file`);
    const parts = await fileBytes(form, "files[]");
    const tree = checkSkillTree(parts.map((p) => ({ path: p.name, bytes: p.bytes })));
    const displayName = form.get("display_name");
    return { tree, displayName: typeof displayName === "string" && displayName ? displayName : undefined };
  }

  function nextVersion(): string {
    const s = kit.state();
    s.lastSkillVersion = Math.max(s.lastSkillVersion + 1, kit.clock.now() * 1000);
    return String(s.lastSkillVersion);
  }

  function addVersion(skillId: string, tree: ReturnType<typeof checkSkillTree>): Obj {
    const s = kit.state();
    const v: Obj = {
      type: "skill_version",
      id: nextVersion(),
      skill_id: skillId,
      name: tree.name,
      description: tree.description,
      directory: tree.name,
      created_at: kit.now(),
    };
    v.version = v.id;
    s.skillVersions.set(`${skillId}@${v.version}`, v);
    s.skillFiles.set(
      `${skillId}@${v.version}`,
      tree.files.map((f) => ({ path: f.path, content_base64: Buffer.from(f.bytes).toString("base64") })),
    );
    return v;
  }

  const versionsOf = (skillId: string) =>
    [...kit.state().skillVersions.values()].filter((v) => v.skill_id === skillId);

  router.post("/skills", async (req, res) => {
    const { tree, displayName } = await readUpload(req);
    const now = kit.now();
    const sk: Obj = {
      id: kit.newId("skill"),
      type: "skill",
      display_name: displayName ?? tree.name,
      description: tree.description,
      latest_version_id: null,
      source: { type: "custom" },
      created_at: now,
      updated_at: now,
    };
    sk.latest_version_id = addVersion(sk.id, tree).version;
    kit.state().skills.set(sk.id, sk);
    res.json(sk);
  });

  router.get("/skills", (req, res) => {
    const source = queryString(req.query, "source");
    if (source !== undefined && source !== "custom" && source !== "anthropic") {
      throw invalid(`source: must be "custom" or "anthropic"`);
    }
    const all = [
      ...(source === "anthropic" ? [] : kit.state().skills.values()),
      ...(source === "custom" ? [] : BUILTIN_SKILLS),
    ];
    res.json(paginate(all, (o) => [o.created_at, o.id], pageParams(req.query, kit.dialect.limits)));
  });

  router.get("/skills/:id", (req, res) => {
    const builtin = BUILTIN_SKILLS.find((b) => b.id === param(req, "id"));
    res.json(builtin ?? skill(param(req, "id")));
  });

  router.delete("/skills/:id", (req, res) => {
    const sk = skill(param(req, "id"));
    const count = versionsOf(sk.id).length;
    if (count > 0) throw invalid(`skill ${sk.id} still has ${count} version(s); delete them first`);
    kit.state().skills.delete(sk.id);
    res.json(deleted(sk.id, "skill"));
  });

  router.post("/skills/:id/versions", async (req, res) => {
    const sk = skill(param(req, "id"));
    const { tree } = await readUpload(req);
    const first = versionsOf(sk.id)[0];
    if (first && first.name !== tree.name) {
      throw invalid(
        `SKILL.md: name ${JSON.stringify(tree.name)} differs from the skill's name ${JSON.stringify(first.name)}`,
      );
    }
    const v = addVersion(sk.id, tree);
    sk.latest_version_id = v.version;
    sk.description = tree.description;
    sk.updated_at = kit.now();
    res.json(v);
  });

  router.get("/skills/:id/versions", (req, res) => {
    const sk = skill(param(req, "id"));
    res.json(
      paginate(
        versionsOf(sk.id),
        (v) => [v.version.padStart(20, "0")],
        pageParams(req.query, kit.dialect.limits),
      ),
    );
  });

  const version = (skillId: string, v: string) => {
    const found = kit.state().skillVersions.get(`${skillId}@${v}`);
    if (!found) throw notFound(`skill ${skillId} version`, v);
    return found;
  };

  router.get("/skills/:id/versions/:v", (req, res) => {
    res.json(version(skill(param(req, "id")).id, param(req, "v")));
  });

  router.get("/skills/:id/versions/:v/content", (req, res) => {
    const sk = skill(param(req, "id"));
    const key = `${sk.id}@${version(sk.id, param(req, "v")).version}`;
    const entries: Record<string, Uint8Array> = {};
    for (const f of kit.state().skillFiles.get(key) ?? [])
      entries[f.path] = Buffer.from(f.content_base64, "base64");
    res.type("application/zip").send(Buffer.from(zipSync(entries)));
  });

  router.delete("/skills/:id/versions/:v", (req, res) => {
    const sk = skill(param(req, "id"));
    const v = version(sk.id, param(req, "v"));
    const s = kit.state();
    s.skillVersions.delete(`${sk.id}@${v.version}`);
    s.skillFiles.delete(`${sk.id}@${v.version}`);
    if (sk.latest_version_id === v.version) {
      const rest = versionsOf(sk.id).sort((a, b) => b.version.localeCompare(a.version));
      sk.latest_version_id = rest[0]?.version ?? null;
    }
    sk.updated_at = kit.now();
    res.json({ id: v.version, type: "skill_version_deleted" });
  });
}
