import { z } from "zod";
import { coded, strict } from "../../model/schema-helpers.js";
import { PROVIDER_SPECS } from "../../providers/specs.js";
import { agentSchema } from "./agent.js";
import { blockListsShape } from "./blocks.js";
import { channelSchema, deploymentSchema } from "./deployment.js";
import type { lifecycleSchema } from "./lifecycle.js";
import {
  environmentSchema,
  fileSchema,
  identitySchema,
  memoryStoreSchema,
  skillSchema,
  tunnelSchema,
  vaultSchema,
} from "./resources.js";

const resourceName = z.string().min(1);
const resourceMap = <T extends z.ZodType>(schema: T) => z.record(resourceName, schema);

const providersShape = Object.fromEntries(
  Object.entries(PROVIDER_SPECS).map(([name, entry]) => [name, entry.config.optional()]),
) as { [K in keyof typeof PROVIDER_SPECS]: z.ZodOptional<(typeof PROVIDER_SPECS)[K]["config"]> };

/** Where the state lives (docs/state.md). Which fields go with which backend is a rule (rules/state.ts). */
export const stateSchema = strict({
  backend: z
    .enum(["file", "postgres"])
    .optional()
    .describe(
      "`file` (default): a state file beside agents.yaml; `postgres`: one row per workspace in PostgreSQL",
    ),
  path: z
    .string()
    .min(1)
    .optional()
    .describe("file backend: the state file, relative to agents.yaml (default agents.state.json)"),
  url: z
    .string()
    .min(1)
    .optional()
    .describe(
      "postgres backend: connection URL, postgres://user:password@host:port/db (write it as `${VAR}`)",
    ),
  workspace: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/)
    .optional()
    .describe("postgres backend: the state's name in the database (default: the project name)"),
  schema: z
    .string()
    .regex(/^[a-z_][a-z0-9_]{0,62}$/)
    .optional()
    .describe(
      "postgres backend: schema holding the state tables, created when missing (default agents_state)",
    ),
});

/** The whole agents.yaml file. */
export const configSchema = strict({
  version: z
    .literal("1", {
      error: (issue) =>
        issue.input === undefined
          ? undefined
          : coded("AGENTS1004", '`version` must be the string "1" (quote it: version: "1")'),
    })
    .describe('schema version; currently the string "1"'),
  providers: strict(providersShape).describe("one block per provider, holding its credentials"),
  state: stateSchema.optional().describe("where the state lives: a file (default) or PostgreSQL"),
  defaults: strict({
    provider: z.string().optional().describe("default target: a declared provider name, or `all`"),
    identity: z.string().optional().describe("the default declared identity"),
  }).optional(),
  environments: resourceMap(environmentSchema).optional().describe("cloud runtimes"),
  tunnels: resourceMap(tunnelSchema).optional().describe("existing BYOC tunnels (provider_b)"),
  vaults: resourceMap(vaultSchema).optional().describe("credential stores"),
  memory_stores: resourceMap(memoryStoreSchema).optional().describe("persistent agent context"),
  skills: resourceMap(skillSchema).optional().describe("reusable capability modules"),
  files: resourceMap(fileSchema)
    .optional()
    .describe("local files uploaded to the provider (provider_a, provider_d)"),
  identities: resourceMap(identitySchema).optional().describe("stable end-user identities (provider_b)"),
  agents: resourceMap(agentSchema).optional().describe("managed agents"),
  channels: resourceMap(channelSchema).optional().describe("external messaging channels (provider_b)"),
  deployments: resourceMap(deploymentSchema).optional().describe("repeatable run units"),
  ...blockListsShape,
});

/** The schema of one declaration of each kind, for checking declarations one at a time. */
export const RESOURCE_SCHEMAS = {
  environments: environmentSchema,
  tunnels: tunnelSchema,
  vaults: vaultSchema,
  memory_stores: memoryStoreSchema,
  skills: skillSchema,
  files: fileSchema,
  identities: identitySchema,
  agents: agentSchema,
  channels: channelSchema,
  deployments: deploymentSchema,
} as const;

export type Config = z.output<typeof configSchema>;
export type StateBlock = z.output<typeof stateSchema>;
export type EnvironmentDecl = z.output<typeof environmentSchema>;
export type VaultDecl = z.output<typeof vaultSchema>;
export type AgentDecl = z.output<typeof agentSchema>;
export type DeploymentDecl = z.output<typeof deploymentSchema>;
export type ChannelDecl = z.output<typeof channelSchema>;
export type IdentityDecl = z.output<typeof identitySchema>;
export type SkillDecl = z.output<typeof skillSchema>;
export type MemoryStoreDecl = z.output<typeof memoryStoreSchema>;
export type LifecycleDecl = z.output<typeof lifecycleSchema>;
