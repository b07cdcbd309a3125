// `agents session start` for provider_b Managed agents (docs/wire/provider-b.md §3.8): one POST /sessions
// on the managed gateway, built by managedSessionToWire from the declaration (environment variables in the
// `KEY=VALUE;…` wire form, repositories as `github_repository` mounted under /data), then the first user
// message when one is given. Forward Templates start sessions per Identity, which is the channel's
// business, not the tool's.

import { SessionStartRefusal } from "../../common/errors.js";
import { send, str } from "../../common/handler-kit.js";
import type { HandlerContext, PriorState, SessionInput, SessionStart } from "../../types.js";
import { UnforeseeableError } from "../../unforeseeable.js";
import { type AgentDecl, isForward, managedSessionToWire } from "../mappers/agent.js";
import { MANAGED_ENV_VALUE_FORBIDDEN } from "../wire-decisions.js";
import { client } from "./shared.js";

export async function startManagedSession(
  ctx: HandlerContext,
  id: string,
  prior: PriorState,
  input: SessionInput,
): Promise<SessionStart> {
  const decl = input.spec as unknown as AgentDecl;
  if (prior.extra?.delivery === "forward" || isForward(decl))
    throw new SessionStartRefusal(
      `${ctx.owner.resource} is a Forward Template; its sessions are created per Identity, not by agents session start`,
    );
  if (!decl.environment)
    throw new SessionStartRefusal(
      `${ctx.owner.resource} declares no environment; a managed session needs one (add environment: <name>)`,
    );
  // provider_b has no managed Files kind here, so a declared mount has no id to send: say so
  // rather than start a session without it. (A bare name is for Forward Templates only.)
  const mounted = (decl.files ?? []).filter((f) => typeof f !== "string");
  if (mounted.length)
    throw new SessionStartRefusal(
      `${ctx.owner.resource}: mounting declared files into a managed session is not supported yet (files: ${mounted.map((f) => f.file).join(", ")})`,
    );
  // The managed session form has no place for these, yet the agent itself is valid to deploy
  // (its Managed create sends neither): only starting a session of it is refused.
  for (const [key, value] of Object.entries(decl.environment_variables ?? {}))
    if (value.includes(MANAGED_ENV_VALUE_FORBIDDEN))
      throw new SessionStartRefusal(
        `${ctx.owner.resource}: environment variable ${key}: provider_b's managed session form cannot carry "${MANAGED_ENV_VALUE_FORBIDDEN}" in a value`,
      );
  for (const resource of decl.resources ?? [])
    if (resource.type !== "git_repository")
      throw new SessionStartRefusal(
        `${ctx.owner.resource}: session resource type ${String(resource.type)} is not supported (only git_repository)`,
      );
  const body = managedSessionToWire(decl, {
    agentId: id,
    environmentId: ctx.resolve("environments", decl.environment),
    ...(decl.tunnel ? { tunnelId: ctx.resolve("tunnels", decl.tunnel) } : {}),
    vaultIds: decl.vault ? [ctx.resolve("vaults", decl.vault)] : [],
    memoryStoreIds: (decl.memory_stores ?? []).map((m) => ctx.resolve("memory_stores", m)),
    files: [],
    ...(input.title ? { title: input.title } : {}),
  });
  const http = client(ctx, "managed");
  const session = await send(ctx, http, { method: "POST", path: "/sessions", json: body });
  const sessionId = str(session.id);
  if (!sessionId)
    throw new UnforeseeableError("answer", "provider_b answered POST /sessions without a session id");
  if (!input.message) return { session_id: sessionId };
  const sent = await send(ctx, http, {
    method: "POST",
    path: `/sessions/${sessionId}/events`,
    json: { events: [{ type: "user.message", content: [{ type: "text", text: input.message }] }] },
  });
  // docs/wire/provider-b.md §3.8: the created event id comes back as `id`, `event_id` or `data[0].id`.
  const first = Array.isArray(sent.data) ? (sent.data[0] as { id?: unknown } | undefined) : undefined;
  const eventId = str(sent.id) ?? str(sent.event_id) ?? str(first?.id);
  return { session_id: sessionId, ...(eventId ? { event_id: eventId } : {}) };
}
