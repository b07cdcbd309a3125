// What provider_d refuses at apply that validate reports first, each with its rule: refused by the
// handlers and mappers (every DeclarationError of the provider code names one of these ids) or by
// the provider's API. test/config/apply-refusals.test.ts proves every row against the simulator
// and validate; test/config/throw-sites.test.ts that every throw names a listed id or says why no
// file can foresee it.
import type { ApplyRefusal } from "../types.js";

export const providerDRefusals: readonly ApplyRefusal[] = [
  {
    id: "provider_d.block_without_api_key",
    kind: "agents",
    message: "providers.provider_d.api_key is required",
    rule: "AGENTS1003",
  },
  {
    id: "provider_d.deployment_without_agent",
    kind: "deployments",
    message: "a deployment needs agent",
    rule: "AGENTS1003",
  },
  {
    id: "provider_d.file_resource_without_source",
    kind: "deployments",
    message: "a file resource needs file_id or source",
    rule: "AGENTS1507",
  },
];
