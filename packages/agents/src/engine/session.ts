// `agents session start`: one session of an applied agent, through its handler's
// `startSession` hook (provider_b Managed agents). Nothing here writes to the terminal.
import type { SessionStart } from "../providers/types.js";
import { StateError } from "../state/types.js";
import { createRuntime, type EngineOptions, withState } from "./api.js";
import { findApplied } from "./run.js";

interface StartedSession extends SessionStart {
  address: string;
  provider: string;
  agent_id: string;
}

/**
 * Starts a session of the agent `target` (logical name or full address). The agent must be
 * applied and still declared: its environment variables and repository tokens are in state
 * only as hashes, so the session is built from the declaration with ids from state. Holds the
 * state lock and writes nothing (a session is not a managed resource).
 */
export async function startSession(
  options: EngineOptions,
  target: string,
  input: { message?: string; title?: string } = {},
): Promise<StartedSession> {
  const command = options.command ?? "agents session start";
  return withState(
    options,
    async (store, project) => {
      const runtime = createRuntime({ ...options, project });
      const resources = store.state.resources;
      const entry = findApplied(
        { ...options, command },
        resources,
        target,
        "agents",
        "agents session start starts agent sessions only",
      );
      const declared = options.project.desired.find((r) => r.address === entry.address);
      if (!declared)
        throw new StateError(
          `${entry.address} is in state but no longer declared in ${options.project.configPath}; a session is built from the declaration`,
        );
      const handler = runtime.requireHandler(entry.provider, "agents", entry.address);
      if (!handler.startSession)
        throw new StateError(
          `${entry.address}: agents session start supports provider_b Managed agents; ${entry.provider} sessions start from a deployment (agents run)`,
        );
      const lookup = (address: string) => {
        const r = resources[address];
        return r ? { id: r.id, extra: r.extra } : undefined;
      };
      const ctx = runtime.context(entry, lookup, options.signal ?? new AbortController().signal, () => {});
      const started = await handler.startSession(
        ctx,
        entry.id,
        {
          id: entry.id,
          spec: entry.spec,
          ...(entry.extra ? { extra: entry.extra } : {}),
          ...(entry.version !== undefined ? { version: entry.version } : {}),
        },
        {
          spec: declared.spec,
          ...(input.message ? { message: input.message } : {}),
          ...(input.title ? { title: input.title } : {}),
        },
      );
      return { address: entry.address, provider: entry.provider, agent_id: entry.id, ...started };
    },
    command,
  );
}
