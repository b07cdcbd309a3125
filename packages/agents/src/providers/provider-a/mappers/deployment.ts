// provider_a native deployments (docs/wire/provider-a.md §3.6): agent object form, message-only initial
// events, file resources under /mnt, cron schedule, and explicit clears on update.

import { DeclarationError } from "../../common/errors.js";
import { assertUniqueMountPaths, normalizeMountPath } from "../../common/mount-paths.js";
import type { Metadata } from "../../common/ownership.js";
import { PROVIDER_A_MOUNT_ROOT } from "../client.js";

interface InitialEventDecl {
  type: "user.message" | "system.message" | "user.define_outcome";
  content?: string;
  description?: string;
}

interface DeploymentResourceDecl {
  type: "file" | "memory_store" | "git_repository";
  file_id?: string;
  source?: string;
  mount_path?: string;
}

export interface DeploymentDecl {
  agent: string;
  agent_version?: number;
  environment?: string;
  vaults?: string[];
  memory_stores?: string[];
  resources?: DeploymentResourceDecl[];
  initial_events?: InitialEventDecl[];
  schedule?: { expression: string; timezone: string };
  description?: string;
  tunnel?: string;
  metadata?: Record<string, string>;
}

interface DeploymentWireInput {
  name: string;
  agentId: string;
  environmentId: string;
  vaultIds: string[];
  /** File ids for each `file` resource, in declaration order (uploaded `source`s already resolved). */
  fileIds: (string | undefined)[];
  metadata: Metadata;
  update: boolean;
  warn(message: string): void;
}

export function initialEventsToWire(
  events: InitialEventDecl[] | undefined,
  name: string,
  warn: (m: string) => void,
) {
  const out: Record<string, unknown>[] = [];
  for (const event of events ?? []) {
    if (event.type === "user.define_outcome") {
      warn(`deployment "${name}": provider_a has no user.define_outcome event; it is not sent`);
      continue;
    }
    // provider_a has no system role in initial events: system messages are sent as user messages.
    out.push({ role: "user", type: "message", content: [{ type: "text", text: event.content ?? "" }] });
  }
  if (out.length === 0) {
    throw new DeclarationError(
      "provider_a.deployment_with_only_an_outcome",
      `deployment "${name}": provider_a needs at least one user.message or system.message initial event`,
    );
  }
  return out;
}

export function deploymentToWire(decl: DeploymentDecl, input: DeploymentWireInput): Record<string, unknown> {
  const { name, warn } = input;
  if (decl.tunnel) warn(`deployment "${name}": tunnels exist only on provider_b; ignored`);
  if (decl.memory_stores?.length) warn(`deployment "${name}": provider_a has no memory stores; not sent`);
  const resources: Record<string, unknown>[] = [];
  (decl.resources ?? []).forEach((resource, index) => {
    if (resource.type !== "file") {
      warn(`deployment "${name}": provider_a deployments take only file resources; ${resource.type} dropped`);
      return;
    }
    const fileId = input.fileIds[index];
    if (!fileId)
      throw new DeclarationError(
        "provider_a.file_resource_without_source",
        `deployment "${name}": file resource ${index + 1} needs file_id or source`,
      );
    if (!resource.mount_path) {
      throw new DeclarationError(
        "provider_a.file_resource_without_mount_path",
        `deployment "${name}": file resource ${index + 1} needs mount_path on provider_a`,
      );
    }
    resources.push({
      type: "file",
      file_id: fileId,
      mount_path: normalizeMountPath(PROVIDER_A_MOUNT_ROOT, resource.mount_path),
    });
  });
  assertUniqueMountPaths(resources.map((r) => r.mount_path as string));
  const body: Record<string, unknown> = {
    name,
    agent: {
      id: input.agentId,
      ...(decl.agent_version !== undefined ? { version: decl.agent_version } : {}),
    },
    environment_id: input.environmentId,
    initial_events: initialEventsToWire(decl.initial_events, name, warn),
    metadata: input.metadata,
  };
  if (decl.schedule)
    body.schedule = { type: "cron", expression: decl.schedule.expression, timezone: decl.schedule.timezone };
  if (input.update) {
    // Update replaces: absent fields are cleared explicitly, lists are always the full set.
    body.description = decl.description ?? "";
    body.vault_ids = input.vaultIds;
    body.resources = resources;
    if (!decl.schedule) body.schedule = null;
  } else {
    if (decl.description !== undefined) body.description = decl.description;
    if (input.vaultIds.length) body.vault_ids = input.vaultIds;
    if (resources.length) body.resources = resources;
  }
  return body;
}
