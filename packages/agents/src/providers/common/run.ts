// Deployment "run now" for provider_a and provider_b: both answer POST /deployments/{id}/run
// with `{id (run), session_id (may be null), error}`; a reported error is a failed run.

import type { HttpClient } from "../http.js";
import type { HandlerContext, RunResult } from "../types.js";
import { send, str } from "./handler-kit.js";

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
    throw new Error(`deployment ${id}: run ${str(run.id) ?? ""} failed: ${message}`);
  }
  const out: RunResult = {};
  if (str(run?.id)) out.run_id = str(run.id);
  if (str(run?.session_id)) out.session_id = str(run.session_id);
  return out;
}
