import { z } from "zod";
import { coded, metadata, providerPin, strict } from "../../model/schema-helpers.js";
import { gitCheckoutSchema } from "./agent.js";
import { lifecycleSchema } from "./lifecycle.js";

const maxIterations = z
  .number()
  .int(coded("AGENTS1501", "`max_iterations` must be an integer from 1 to 20"))
  .min(1, coded("AGENTS1501", "`max_iterations` must be an integer from 1 to 20"))
  .max(20, coded("AGENTS1501", "`max_iterations` must be an integer from 1 to 20"));

const initialEventSchema = z.discriminatedUnion(
  "type",
  [
    strict({ type: z.literal("user.message"), content: z.string() }),
    strict({ type: z.literal("system.message"), content: z.string() }),
    strict({
      type: z.literal("user.define_outcome"),
      description: z.string().optional(),
      rubric: z.string().optional().describe("inline rubric; alternative to `rubric_file`"),
      rubric_file: z
        .string()
        .optional()
        .describe("rubric file relative to agents.yaml; alternative to `rubric`"),
      max_iterations: maxIterations.optional(),
    }),
  ],
  {
    error: (issue) =>
      issue.code === "invalid_union"
        ? coded(
            "AGENTS1001",
            'initial event `type` must be "user.message", "system.message" or "user.define_outcome"',
          )
        : undefined,
  },
);

const deploymentResourceSchema = z.discriminatedUnion(
  "type",
  [
    strict({
      type: z.literal("file"),
      file_id: z.string().min(1).optional().describe("an uploaded file id"),
      source: z.string().min(1).optional().describe("a local file, relative to agents.yaml"),
      mount_path: z.string().min(1).optional(),
    }),
    strict({
      type: z.literal("memory_store"),
      memory_store: z.string().min(1).describe("a declared memory store"),
      access: z.enum(["read_write", "read_only"]).optional(),
      instructions: z.string().optional(),
    }),
    strict({
      type: z.literal("git_repository"),
      url: z.string().min(1),
      checkout: gitCheckoutSchema.optional(),
      mount_path: z.string().min(1).optional(),
      authorization_token: z.string().optional().describe("write it as `${VAR}`"),
    }),
  ],
  {
    error: (issue) =>
      issue.code === "invalid_union"
        ? coded("AGENTS1001", 'deployment resource `type` must be "file", "memory_store" or "git_repository"')
        : undefined,
  },
);

export const deploymentSchema = strict({
  agent: z.string().min(1).describe("a declared agent"),
  agent_version: z.number().int().positive().optional().describe("pins an agent version"),
  environment: z.string().optional().describe("a declared environment"),
  tunnel: z.string().optional().describe("a declared tunnel (provider_b drops it with a warning)"),
  vaults: z.array(z.string()).optional(),
  memory_stores: z.array(z.string()).optional(),
  resources: z.array(deploymentResourceSchema).optional(),
  initial_events: z
    .array(initialEventSchema)
    .min(1, coded("AGENTS1500", "`initial_events` must have 1 to 50 entries"))
    .max(50, coded("AGENTS1500", "`initial_events` must have 1 to 50 entries"))
    .optional(),
  schedule: strict({
    expression: z.string().describe("5-field cron expression"),
    timezone: z.string().optional().describe("IANA time zone name; default UTC"),
  }).optional(),
  description: z.string().optional(),
  provider: providerPin.optional(),
  metadata: metadata.optional(),
  lifecycle: lifecycleSchema.optional(),
}).describe("a repeatable run unit");

export const channelSchema = strict({
  provider: providerPin.optional(),
  agent: z.string().optional().describe("a declared agent (fixed mode)"),
  identity: z.string().optional().describe("a declared identity (fixed mode); default `defaults.identity`"),
  type: z
    .string()
    .min(1)
    .describe("provider-specific channel type (provider_b: dingtalk, feishu, wecom, wechat)"),
  mode: z.enum(["fixed", "pairing"]).optional().describe("default `fixed`"),
  name: z.string().optional().describe("defaults to the YAML key"),
  enabled: z.boolean().optional().describe("default true"),
  credentials: z
    .record(z.string(), z.union([z.string(), z.number()]).transform(String))
    .optional()
    .describe("provider-specific credentials (write values as `${VAR}`)"),
  options: z
    .object({
      include_tool_calls: z.boolean().optional(),
      include_thinking: z.boolean().optional(),
    })
    .catchall(z.unknown())
    .optional()
    .describe("provider-specific response options"),
  lifecycle: lifecycleSchema.optional(),
}).describe("an external messaging channel (provider_b)");
