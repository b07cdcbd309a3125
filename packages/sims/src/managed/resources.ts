import { invalid } from "./errors.js";
import type { Kit } from "./state.js";
import { allowOnly, checkString, type JsonObject, requireObject } from "./validate.js";

const MAX_RESOURCES = 500;

function slug(name: string): string {
  return (
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "") || "store"
  );
}

function mountPath(raw: unknown, where: string, root: string, fallback: string): string {
  if (raw === undefined || raw === null) return fallback;
  const p = checkString(raw, where, { min: 1 });
  if (p.split("/").includes("..")) throw invalid(`${where}: ".." is not allowed`);
  if (!p.startsWith("/")) return `${root}/${p}`;
  if (p !== root && !p.startsWith(`${root}/`))
    throw invalid(`${where}: absolute paths must be under ${root}`);
  return p;
}

/**
 * Session / deployment `resources`: files, git repositories (provider_c) and memory stores. The
 * repository `authorization_token` is write-only and is not kept at all: the simulator clones nothing.
 */
export function parseResources(v: unknown, kit: Kit, where = "resources"): JsonObject[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw invalid(`${where}: expected an array`);
  if (v.length > MAX_RESOURCES) throw invalid(`${where}: at most ${MAX_RESOURCES} entries`);
  const root = kit.dialect.mountRoot;
  const s = kit.state();
  return v.map((raw, i) => {
    const w = `${where}[${i}]`;
    const r = requireObject(raw, w);
    if (typeof r.type !== "string" || !kit.dialect.resourceTypes.includes(r.type)) {
      throw invalid(`${w}.type: must be one of ${kit.dialect.resourceTypes.join(", ")}`);
    }
    if (r.type === "file") {
      allowOnly(r, ["type", "file_id", "mount_path"], w);
      const id = checkString(r.file_id, `${w}.file_id`, { min: 1 });
      const file = s.files.get(id);
      if (!file) throw invalid(`${w}.file_id: file ${JSON.stringify(id)} not found`);
      return {
        type: "file",
        file_id: id,
        mount_path: mountPath(r.mount_path, `${w}.mount_path`, root, `${root}/${file.filename}`),
      };
    }
    if (r.type === "github_repository") {
      allowOnly(r, ["type", "url", "authorization_token", "checkout", "mount_path"], w);
      const url = checkString(r.url, `${w}.url`, { min: 1 });
      if (!URL.canParse(url)) throw invalid(`${w}.url: not a URL`);
      if (url.endsWith(".git")) throw invalid(`${w}.url: must not end with ".git"`);
      const repo = new URL(url).pathname.split("/").filter(Boolean).pop() ?? "repo";
      const out: JsonObject = {
        type: "github_repository",
        url,
        mount_path: mountPath(r.mount_path, `${w}.mount_path`, root, `${root}/${repo}`),
      };
      if (r.checkout !== undefined && r.checkout !== null) {
        const c = requireObject(r.checkout, `${w}.checkout`);
        if (c.type === "branch") {
          allowOnly(c, ["type", "name"], `${w}.checkout`);
          out.checkout = { type: "branch", name: checkString(c.name, `${w}.checkout.name`, { min: 1 }) };
        } else if (c.type === "commit") {
          allowOnly(c, ["type", "sha"], `${w}.checkout`);
          out.checkout = { type: "commit", sha: checkString(c.sha, `${w}.checkout.sha`, { min: 7 }) };
        } else throw invalid(`${w}.checkout.type: must be "branch" or "commit"`);
      }
      return out;
    }
    const full = kit.dialect.name === "provider_c";
    allowOnly(
      r,
      full ? ["type", "memory_store_id", "access", "instructions"] : ["type", "memory_store_id"],
      w,
    );
    const id = checkString(r.memory_store_id, `${w}.memory_store_id`, { min: 1 });
    const store = s.memoryStores.get(id);
    if (!store) throw invalid(`${w}.memory_store_id: memory store ${JSON.stringify(id)} not found`);
    if (store.archived_at) throw invalid(`${w}.memory_store_id: memory store ${id} is archived`);
    const out: JsonObject = { type: "memory_store", memory_store_id: id };
    if (full) {
      const access = r.access ?? "read_write";
      if (access !== "read_write" && access !== "read_only")
        throw invalid(`${w}.access: must be "read_write" or "read_only"`);
      out.access = access;
      out.instructions =
        r.instructions === undefined || r.instructions === null
          ? null
          : checkString(r.instructions, `${w}.instructions`);
      out.mount_path = `/mnt/memory/${slug(store.name)}`;
    }
    return out;
  });
}
