import { isObject } from "../kit/records.js";
import { bad, type Ctx, checkMountPath } from "./common.js";
import type { Domain } from "./state.js";

/**
 * Session / deployment `resources`. Managed: file, github_repository, memory_store. Forward
 * sessions: files only. Tokens are accepted and never read back.
 */
export function sessionResources(ctx: Ctx, value: unknown, domain: Domain): Record<string, unknown>[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw bad("resources must be an array");
  const paths = new Set<string>();
  return value.map((r, i) => {
    const at = `resources[${i}]`;
    if (!isObject(r) || typeof r.type !== "string" || r.type === "") throw bad(`${at}.type is required`);
    let out: Record<string, unknown>;
    if (r.type === "file") {
      const file = typeof r.file_id === "string" ? ctx.state.objects.files.get(r.file_id) : undefined;
      if (!file || file._domain !== domain) throw bad(`${at}.file_id does not name a file`);
      checkMountPath(r.mount_path, `${at}.mount_path`);
      out = {
        type: "file",
        file_id: file.id,
        mount_path: r.mount_path ?? `/data/${file.filename as string}`,
      };
    } else if (domain === "forward") {
      throw bad(`${at}.type must be "file" on Forward sessions`);
    } else if (r.type === "github_repository") {
      if (typeof r.url !== "string" || !/^https:\/\//.test(r.url))
        throw bad(`${at}.url must be an https URL`);
      checkMountPath(r.mount_path, `${at}.mount_path`);
      const checkout = r.checkout;
      if (
        checkout !== undefined &&
        !(
          isObject(checkout) &&
          ((checkout.type === "branch" && typeof checkout.name === "string") ||
            (checkout.type === "commit" && typeof checkout.sha === "string"))
        )
      ) {
        throw bad(`${at}.checkout must be {type:"branch", name} or {type:"commit", sha}`);
      }
      const repo =
        r.url
          .replace(/\.git$/, "")
          .split("/")
          .pop() ?? "repo";
      out = { type: "github_repository", url: r.url, mount_path: r.mount_path ?? `/data/workspace/${repo}` };
      if (checkout !== undefined) out.checkout = checkout;
    } else if (r.type === "memory_store") {
      const store =
        typeof r.memory_store_id === "string"
          ? ctx.state.objects.memory_stores.get(r.memory_store_id)
          : undefined;
      if (!store || store.archived_at) throw bad(`${at}.memory_store_id does not name a live memory store`);
      const access = r.access ?? "read_write";
      if (access !== "read_write" && access !== "read_only")
        throw bad(`${at}.access must be read_write or read_only`);
      out = { type: "memory_store", memory_store_id: store.id, access };
      if (typeof r.instructions === "string") out.instructions = r.instructions;
    } else {
      throw bad(`${at}.type "${r.type}" is not supported`);
    }
    const path = out.mount_path as string | undefined;
    if (path) {
      if (paths.has(path)) throw bad(`${at}.mount_path ${path} is used twice`);
      paths.add(path);
    }
    return out;
  });
}

/** Managed sessions take environment variables as one `KEY=VALUE;KEY2=VALUE2` string. */
export function envVarString(value: unknown): string[] {
  if (value === undefined || value === null || value === "") return [];
  if (typeof value !== "string") throw bad("environment_variables must be a KEY=VALUE;... string");
  return value.split(";").map((pair) => {
    const m = /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(pair);
    if (!m) throw bad("environment_variables must be a KEY=VALUE;... string");
    return m[1]!;
  });
}

/**
 * Deployments take them as a string map or, like managed sessions, as one `KEY=VALUE;KEY2=VALUE2`
 * string; both read back as the map (the value is everything after the first `=`).
 */
export function envVarMapOrString(value: unknown, field: string): Record<string, string> | null {
  if (typeof value !== "string") return envVarMap(value, field);
  const out: Record<string, string> = {};
  if (value === "") return out;
  for (const pair of value.split(";")) {
    if (pair === "") continue;
    const m = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(pair);
    if (!m) throw bad(`${field} must be an object or a KEY=VALUE;... string`);
    out[m[1]!] = m[2]!;
  }
  return out;
}

/** Forward templates/sessions and deployments take them as a string map. */
export function envVarMap(value: unknown, field: string): Record<string, string> | null {
  if (value === undefined || value === null) return null;
  if (!isObject(value)) throw bad(`${field} must be an object`);
  for (const [k, v] of Object.entries(value)) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k)) throw bad(`${field}: ${k} is not a valid variable name`);
    if (typeof v !== "string") throw bad(`${field}.${k} must be a string`);
  }
  return value as Record<string, string>;
}
