// `list` for provider_c deployments (`agents sync`): what a deployment holds in its own fields
// (initial events, schedule, description, metadata) in declared shape, and its agent and
// environment as `sync_refs` ids that sync turns into the project's logical names. Vaults, memory
// stores and resources are left out (uploaded rubric and file sources cannot be given back), so
// the file keeps them as declared. Walks reuse the dialect's `listAll`.

import { str } from "../common/handler-kit.js";
import { listedOwnerOf, userMetadata } from "../common/ownership.js";
import { listAll } from "../common/paging.js";
import { initialEventsFromWire, scheduleFromWire } from "../managed-dialect/deployment.js";
import { idOf, isArchived } from "../managed-dialect/remote.js";
import { compact, isRecord, type Json, nonEmpty } from "../managed-dialect/spec.js";
import type { ListContext, RemoteObject } from "../types.js";
import { PAGE_SIZE } from "./wire-decisions.js";

export async function listDeployments(ctx: ListContext): Promise<RemoteObject[]> {
  const all = await listAll<Json>(ctx.http, "/deployments", { pageSize: PAGE_SIZE, signal: ctx.signal });
  return all.map((remote) => {
    const owner = listedOwnerOf(remote.metadata);
    const agent = remote.agent;
    const agentId = typeof agent === "string" ? agent : isRecord(agent) ? str(agent.id) : undefined;
    const environmentId = str(remote.environment_id);
    return {
      id: idOf(remote),
      spec: compact({
        initial_events: initialEventsFromWire(remote.initial_events),
        schedule: scheduleFromWire(remote.schedule),
        description: nonEmpty(str(remote.description)),
        metadata: userMetadata(remote.metadata),
      }),
      ...(owner ? { owner } : {}),
      archived: isArchived(remote),
      extra: {
        sync_refs: [
          ...(agentId ? [{ field: "agent", kind: "agents", ids: [agentId], list: false }] : []),
          ...(environmentId
            ? [{ field: "environment", kind: "environments", ids: [environmentId], list: false }]
            : []),
        ],
      },
    };
  });
}
