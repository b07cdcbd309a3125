// Session resources of provider_b managed Sessions (spec "Session resources"): repositories on
// the wire as `github_repository`, mount paths under /data, repository default
// /data/workspace/<repo>, unique paths, and memory stores by id.

import { DeclarationError } from "../../common/errors.js";
import { assertUniqueMountPaths, normalizeMountPath, repositoryMountPath } from "../../common/mount-paths.js";
import { UnforeseeableError } from "../../unforeseeable.js";
import { PROVIDER_B_MOUNT_ROOT } from "../client.js";
import { REPOSITORY_WIRE_TYPE } from "../wire-decisions.js";

export interface GitRepositoryDecl {
  type: "git_repository";
  url: string;
  authorization_token?: string;
  checkout?: { branch?: string; commit?: string };
  mount_path?: string;
}

export function checkoutToWire(checkout: GitRepositoryDecl["checkout"]): Record<string, unknown> | undefined {
  if (!checkout) return undefined;
  if (checkout.branch !== undefined && checkout.commit !== undefined) {
    throw new DeclarationError(
      "provider_b.checkout_branch_and_commit",
      "checkout takes either branch or commit, not both",
    );
  }
  if (checkout.branch !== undefined) return { type: "branch", name: checkout.branch };
  if (checkout.commit !== undefined) {
    if (!/^[0-9a-f]{40}$/i.test(checkout.commit))
      throw new DeclarationError(
        "provider_b.checkout_short_commit",
        `checkout.commit "${checkout.commit}" is not a full SHA`,
      );
    return { type: "commit", sha: checkout.commit };
  }
  return undefined;
}

export function repositoryToWire(decl: GitRepositoryDecl): Record<string, unknown> {
  const checkout = checkoutToWire(decl.checkout);
  return {
    type: REPOSITORY_WIRE_TYPE,
    url: decl.url,
    ...(decl.authorization_token ? { authorization_token: decl.authorization_token } : {}),
    ...(checkout ? { checkout } : {}),
    mount_path: repositoryMountPath(PROVIDER_B_MOUNT_ROOT, decl.url, decl.mount_path),
  };
}

interface SessionResourceInput {
  repositories?: GitRepositoryDecl[];
  files?: { file_id: string; mount_path: string }[];
  memoryStoreIds?: string[];
}

export function sessionResourcesToWire(input: SessionResourceInput): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const repo of input.repositories ?? []) {
    if (repo.type !== "git_repository")
      throw new UnforeseeableError(
        "internal",
        `session resource type ${repo.type} reached the session body (the schema and the session start refuse it first)`,
      );
    out.push(repositoryToWire(repo));
  }
  for (const file of input.files ?? []) {
    out.push({
      type: "file",
      file_id: file.file_id,
      mount_path: normalizeMountPath(PROVIDER_B_MOUNT_ROOT, file.mount_path),
    });
  }
  assertUniqueMountPaths(out.map((r) => r.mount_path as string));
  for (const id of new Set(input.memoryStoreIds ?? []))
    out.push({ type: "memory_store", memory_store_id: id });
  return out;
}
