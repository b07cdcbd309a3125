// What distinguishes provider_c from provider_d inside the shared Managed-Agents dialect, as
// data. Handlers read the profile; they never branch on a provider name.
import type { AgentDialect } from "./agent.js";

export interface DialectProfile {
  agent: AgentDialect;
  pageSize: number;
  /**
   * The list endpoints of environments, vaults, memory stores, agents and deployments return the
   * same objects as their GETs, so refresh may read many resources from a few pages.
   */
  listsShowFullObjects: boolean;
  /** "patch": upsert + null for dropped keys; "replace": send the full declared map. */
  metadataUpdate: "patch" | "replace";
  agentRemoval: "archive" | "delete";
  memoryPreconditions: boolean;
  memoryBatchCreate: boolean;
  /** Memory lists accept `view=basic|full`. */
  memoryListView: boolean;
  vaultInPlaceUpdate: boolean;
  injectionLocation: boolean;
  agentVersionRetries: number;
}
