// What provider_b refuses at apply that validate reports first, each with its rule. The handler
// messages are the ones thrown in handlers/ and mappers/; test/config/apply-refusals.test.ts
// proves every row against the simulator and validate.
import type { ApplyRefusal } from "../types.js";

export const providerBRefusals: readonly ApplyRefusal[] = [
  {
    id: "provider_b.forward_template_without_environment",
    kind: "agents",
    message: "a Forward Template needs an environment",
    rule: "AGENTS1223",
  },
  {
    id: "provider_b.deployment_of_forward_agent",
    kind: "deployments",
    message: "uses Forward delivery, which cannot be deployed",
    rule: "AGENTS1513",
  },
  {
    id: "provider_b.managed_tool_config_on_managed_delivery",
    kind: "agents",
    message: "managed_tool_config needs Forward delivery",
    rule: "AGENTS1210",
  },
  {
    id: "provider_b.forward_coordinator_with_agent_id",
    kind: "agents",
    message: "a Forward coordinator takes only project agents",
    rule: "AGENTS1304",
  },
  {
    id: "provider_b.model_map_without_entry",
    kind: "agents",
    message: "model has no entry for provider_b",
    rule: "AGENTS1052",
  },
];
