// provider_b managed deployments (docs/wire/provider-b.md §3.7): tunnels dropped with a warning, update
// sends full lists and explicit clears, a schedule cannot be removed in place.

import { DeclarationError } from "../../common/errors.js";
import { assertUniqueMountPaths, normalizeMountPath } from "../../common/mount-paths.js";
import { UnforeseeableError } from "../../unforeseeable.js";
import { PROVIDER_B_MOUNT_ROOT } from "../client.js";
import { envVarsMap } from "./environment-variables.js";
import { type GitRepositoryDecl, repositoryToWire } from "./session-resources.js";

export interface DeploymentDecl {
  agent: string;
  agent_version?: number;
  environment?: string;
  tunnel?: string;
  vaults?: string[];
  memory_stores?: string[];
  resources?: (
    | { type: "file"; file_id?: string; source?: string; mount_path?: string }
    | {
        type: "memory_store";
        memory_store: string;
        access?: "read_write" | "read_only";
        instructions?: string;
      }
    | GitRepositoryDecl
  )[];
  initial_events?: (
    | { type: "user.message" | "system.message"; content: string }
    | {
        type: "user.define_outcome";
        description?: string;
        rubric?: string;
        rubric_file?: string;
        max_iterations?: number;
      }
  )[];
  schedule?: { expression: string; timezone: string };
  description?: string;
  environment_variables?: Record<string, string>;
  metadata?: Record<string, string>;
}

interface DeploymentInput {
  name: string;
  agentId: string;
  environmentId?: string;
  vaultIds: string[];
  /** Resolved id per resource index (files: file id, memory stores: store id). */
  resourceIds: (string | undefined)[];
  memoryStoreIds: string[];
  /** Uploaded rubric file ids per initial event index. */
  rubricFileIds?: (string | undefined)[];
  metadata: Record<string, string | null>;
  update: boolean;
  /** The deployment currently has a schedule (update only). */
  remoteHasSchedule?: boolean;
  warn(message: string): void;
}

export function deploymentToWire(decl: DeploymentDecl, input: DeploymentInput): Record<string, unknown> {
  const { name } = input;
  if (decl.tunnel) {
    input.warn(
      `deployment "${name}": provider_b deployments take no tunnel; runs execute without it (use Sessions for private-network MCP)`,
    );
  }
  if (input.update && input.remoteHasSchedule && !decl.schedule) {
    throw new UnforeseeableError(
      "internal",
      `deployment "${name}": provider_b cannot remove a schedule in place; run agents plan again: it plans this removal as a replacement`,
    );
  }
  const resources: Record<string, unknown>[] = [];
  const storeIds = new Set<string>();
  (decl.resources ?? []).forEach((resource, i) => {
    if (resource.type === "file") {
      const fileId = input.resourceIds[i];
      if (!fileId)
        throw new DeclarationError(
          "provider_b.file_resource_without_source",
          `deployment "${name}": file resource ${i + 1} needs file_id or source`,
        );
      resources.push({
        type: "file",
        file_id: fileId,
        ...(resource.mount_path
          ? { mount_path: normalizeMountPath(PROVIDER_B_MOUNT_ROOT, resource.mount_path) }
          : {}),
      });
    } else if (resource.type === "memory_store") {
      const id = input.resourceIds[i]!;
      storeIds.add(id);
      resources.push({
        type: "memory_store",
        memory_store_id: id,
        ...(resource.access ? { access: resource.access } : {}),
        ...(resource.instructions ? { instructions: resource.instructions } : {}),
      });
    } else {
      resources.push(repositoryToWire(resource));
    }
  });
  for (const id of input.memoryStoreIds) {
    if (!storeIds.has(id)) resources.push({ type: "memory_store", memory_store_id: id });
    storeIds.add(id);
  }
  assertUniqueMountPaths(
    resources.filter((r) => typeof r.mount_path === "string").map((r) => r.mount_path as string),
  );
  const body: Record<string, unknown> = {
    name,
    agent:
      decl.agent_version !== undefined
        ? { id: input.agentId, type: "agent", version: decl.agent_version }
        : input.agentId,
    initial_events: (decl.initial_events ?? []).map((event, i) => {
      if (event.type !== "user.define_outcome")
        return { type: event.type, content: [{ type: "text", text: event.content }] };
      const fileId = input.rubricFileIds?.[i];
      return {
        type: event.type,
        ...(event.description ? { description: event.description } : {}),
        ...(fileId
          ? { rubric: { type: "file", file_id: fileId } }
          : event.rubric !== undefined
            ? { rubric: { type: "text", content: event.rubric } }
            : {}),
        ...(event.max_iterations !== undefined ? { max_iterations: event.max_iterations } : {}),
      };
    }),
    metadata: input.metadata,
  };
  if (input.environmentId) body.environment_id = input.environmentId;
  if (decl.schedule)
    body.schedule = { type: "cron", expression: decl.schedule.expression, timezone: decl.schedule.timezone };
  const vars = envVarsMap(decl.environment_variables);
  if (input.update) {
    body.vault_ids = input.vaultIds;
    body.resources = resources;
    body.description = decl.description ?? "";
    body.environment_variables = vars ?? null;
  } else {
    if (input.vaultIds.length) body.vault_ids = input.vaultIds;
    if (resources.length) body.resources = resources;
    if (decl.description !== undefined) body.description = decl.description;
    if (vars) body.environment_variables = vars;
  }
  return body;
}
