import type { Kit } from "./state.js";
import type { Json, JsonObject } from "./validate.js";

/** Agent fields a provider_c session snapshots (SDK 1.12 `BetaManagedAgentsSessionAgent`). */
const SNAPSHOT_FIELDS = ["name", "description", "model", "system", "tools", "mcp_servers", "skills"];

/**
 * provider_c reads a session's (and a session thread's) `agent` back as the resolved agent definition
 * at the version it runs (SDK `BetaManagedAgentsSessionAgent` / `…SessionThreadAgent`), not as the bare
 * reference. A thread's snapshot leaves the roster out (the SDK: "the multiagent roster is not repeated").
 */
export function agentSnapshot(kit: Kit, ref: JsonObject, withRoster = true): JsonObject {
  const st = kit.state();
  const id = String(ref.id);
  const history = st.agentVersions.get(id) ?? [];
  const at = history.find((v) => v.version === ref.version) ?? st.agents.get(id);
  if (!at) return ref;
  const snap: JsonObject = { type: "agent", id, version: ref.version as Json };
  for (const f of SNAPSHOT_FIELDS) snap[f] = (at[f] ?? null) as Json;
  if (withRoster) snap.multiagent = (at.multiagent ?? null) as Json;
  snap.execution_identity = (at.execution_identity ?? { type: "service_account" }) as Json;
  return snap;
}
