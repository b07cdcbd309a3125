// Session resources (files, memory stores, git repositories) and mount paths under the
// provider's mount root: relative paths go under the root, absolute ones must already use it.

import { DeclarationError } from "../common/errors.js";
import { str } from "../common/handler-kit.js";
import { compact, isRecord, type Json } from "./spec.js";

export function mountPath(root: string, path: string | undefined): string | undefined {
  if (path === undefined || path === "") return undefined;
  if (path.startsWith("/")) {
    if (path !== root && !path.startsWith(`${root}/`))
      throw new DeclarationError(
        "managed.mount_path_outside_root",
        `mount path "${path}" is not under this provider's mount root ${root}; use a path under ${root}/ or a relative path`,
      );
    return path;
  }
  const relative = path.replace(/^\.\/+/, "").replace(/\/+$/, "");
  if (relative.split("/").includes(".."))
    throw new DeclarationError(
      "managed.mount_path_escapes_root",
      `mount path "${path}" may not climb out of ${root} with ".."`,
    );
  return `${root}/${relative}`;
}

/** `https://host/org/repo.git` → `https://host/org/repo` (the provider rejects a `.git` suffix). */
export function repositoryUrl(url: string): string {
  return url.replace(/\/+$/, "").replace(/\.git$/, "");
}

export function repositoryName(url: string): string {
  const last = repositoryUrl(url).split("/").pop() ?? "";
  return last === "" ? "repository" : last;
}

/** `checkout: {branch}` / `{commit}` → the wire's tagged form. */
export function checkoutToWire(checkout: unknown): Json | undefined {
  if (!isRecord(checkout)) return undefined;
  const branch = str(checkout.branch);
  if (branch) return { type: "branch", name: branch };
  const commit = str(checkout.commit);
  if (commit) return { type: "commit", sha: commit };
  return undefined;
}

interface GitResourceOptions {
  root: string;
  /** Sent only when the caller needs a request body; state records never carry the token. */
  includeToken: boolean;
}

/** A declared `git_repository` resource → provider_c's `github_repository` resource. */
export function gitRepositoryToWire(decl: Json, options: GitResourceOptions): Json {
  const url = str(decl.url);
  if (!url)
    throw new DeclarationError("managed.repository_without_url", "a git_repository resource needs a url");
  const clean = repositoryUrl(url);
  const token = str(decl.authorization_token);
  return compact({
    type: "github_repository",
    url: clean,
    authorization_token: options.includeToken ? token : undefined,
    checkout: checkoutToWire(decl.checkout),
    mount_path: mountPath(options.root, str(decl.mount_path)) ?? `${options.root}/${repositoryName(clean)}`,
  });
}

export function fileResource(fileId: string, mount: string | undefined, root: string): Json {
  return compact({ type: "file", file_id: fileId, mount_path: mountPath(root, mount) });
}
