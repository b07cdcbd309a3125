// Deployments on provider_a and provider_b, whose deployment wires agree: the read-back mapping,
// and "run now" (both answer POST /deployments/{id}/run with `{id (run), session_id (may be
// null), error}`; a reported error is a failed run).

import type { HttpClient } from "../http.js";
import type { HandlerContext, RemoteObject, RunResult } from "../types.js";
import { UnforeseeableError } from "../unforeseeable.js";
import { send, str, type Wire } from "./handler-kit.js";
import { ownerOf, userMetadata } from "./ownership.js";

export async function runDeployment(ctx: HandlerContext, http: HttpClient, id: string): Promise<RunResult> {
  const run = await send<Record<string, unknown>>(ctx, http, {
    method: "POST",
    path: `/deployments/${id}/run`,
    json: {},
  });
  const error = run?.error;
  if (error) {
    const message =
      typeof error === "object"
        ? String((error as { message?: unknown }).message ?? JSON.stringify(error))
        : String(error);
    throw new UnforeseeableError("answer", `deployment ${id}: run ${str(run.id) ?? ""} failed: ${message}`);
  }
  const out: RunResult = {};
  if (str(run?.id)) out.run_id = str(run.id);
  if (str(run?.session_id)) out.session_id = str(run.session_id);
  return out;
}

/** A deployment as read back: schedule, description and user metadata; status kept for later calls. */
export function deploymentFromWire(wire: Wire): RemoteObject {
  const schedule = wire.schedule as { expression?: string; timezone?: string } | null | undefined;
  return {
    id: String(wire.id),
    spec: {
      ...(schedule?.expression
        ? { schedule: { expression: schedule.expression, timezone: schedule.timezone } }
        : {}),
      ...(typeof wire.description === "string" && wire.description ? { description: wire.description } : {}),
      metadata: userMetadata(wire.metadata),
    },
    owner: ownerOf(wire.metadata),
    extra: { status: wire.status },
  };
}
