import { z } from "zod";
import { coded, metadata, providerPin, strict, stringMap } from "../../model/schema-helpers.js";
import { PROVIDER_SPECS } from "../../providers/specs.js";
import { lifecycleSchema } from "./lifecycle.js";

const permission = z.enum(["allow", "ask"]);

/** MCP toolkit entry. camelCase aliases are accepted and folded into the snake_case fields. */
const mcpToolkitSchema = strict({
  type: z.literal("mcp_toolkit").optional().describe("always `mcp_toolkit`"),
  mcp_server_name: z.string().min(1).optional().describe("MCP server name (alias `mcpServerName`)"),
  mcpServerName: z.string().min(1).optional().describe("alias of `mcp_server_name`"),
  default_config: strict({ enabled: z.boolean() })
    .optional()
    .describe("default for all tools of the server (alias `defaultConfig`)"),
  defaultConfig: strict({ enabled: z.boolean() }).optional().describe("alias of `default_config`"),
  configs: z
    .array(strict({ name: z.string().min(1), enabled: z.boolean() }))
    .optional()
    .describe("per-tool overrides"),
})
  .superRefine((value, ctx) => {
    const pairs = [
      ["mcp_server_name", "mcpServerName"],
      ["default_config", "defaultConfig"],
    ] as const;
    for (const [snake, camel] of pairs) {
      if (value[snake] !== undefined && value[camel] !== undefined) {
        ctx.addIssue({
          code: "custom",
          path: [camel],
          message: coded("AGENTS1205", `give \`${snake}\` or its alias \`${camel}\`, not both`),
        });
      }
    }
    if (value.mcp_server_name === undefined && value.mcpServerName === undefined) {
      ctx.addIssue({
        code: "custom",
        path: [],
        message: coded("AGENTS1205", "an MCP toolkit needs `mcp_server_name`"),
      });
    }
  })
  .transform((value) => ({
    type: "mcp_toolkit" as const,
    mcp_server_name: (value.mcp_server_name ?? value.mcpServerName) as string,
    default_config: value.default_config ?? value.defaultConfig,
    configs: value.configs,
  }));

const toolsSchema = strict({
  builtin: z
    .array(z.string())
    .describe("enabled builtin tools, lowercase names (e.g. bash, read, web_fetch)"),
  default_permission: permission
    .optional()
    .describe("permission inherited by enabled builtins; default `allow`"),
  permissions: z
    .record(z.string(), permission)
    .optional()
    .describe("per-tool overrides; names match case- and separator-insensitively"),
  mcp: z.array(mcpToolkitSchema).optional().describe("tools selected from MCP servers"),
});

const mcpServerSchema = strict({
  name: z.string().min(1).describe("server name, referenced by `tools.mcp[].mcp_server_name`"),
  type: z
    .enum(["url", "official"])
    .optional()
    .describe(
      "`url` (a server by URL) or `official` (a provider-hosted server by name); inferred from `url`",
    ),
  url: z.string().min(1).optional().describe("server URL (URL form)"),
});

const skillRef = z.union([
  z.string().min(1).describe("a declared skill name"),
  strict({
    type: z.enum(["official", "custom"]),
    skill_id: z.string().min(1),
    version: z.string().optional(),
  }).describe("a remote skill by id"),
]);

const agentFileRef = z.union([
  z
    .string()
    .min(1)
    .describe("a local file path (relative to agents.yaml) that a provider_b Forward Template inherits"),
  strict({
    file: z.string().min(1).describe("a declared file name"),
    mount_path: z.string().min(1).describe("relative paths go under the provider's mount root"),
  }),
]);

/** `{branch}` or `{commit}`: one object, so a wrong value or both keys get their own message. */
export const gitCheckoutSchema = strict({
  branch: z.string().min(1).optional().describe("a branch to follow; give `branch` or `commit`, not both"),
  commit: z
    .string()
    .regex(
      /^[0-9a-f]{40}$/i,
      coded(
        "AGENTS1037",
        "`checkout.commit` must be the full 40-character commit SHA, not a short or named one",
      ),
    )
    .optional()
    .describe("the full 40-character SHA of a commit to pin"),
}).superRefine((value, ctx) => {
  if (value.branch !== undefined && value.commit !== undefined) {
    ctx.addIssue({
      code: "custom",
      path: ["commit"],
      message: coded("AGENTS1037", "`checkout` takes `branch` or `commit`, not both"),
    });
  } else if (value.branch === undefined && value.commit === undefined) {
    ctx.addIssue({
      code: "custom",
      path: [],
      message: coded("AGENTS1037", "`checkout` needs `branch` or `commit`"),
    });
  }
});

const gitRepositorySchema = strict({
  type: z.literal("git_repository"),
  url: z.string().min(1).describe("repository URL"),
  authorization_token: z.string().optional().describe("write it as `${VAR}`; never inline"),
  checkout: gitCheckoutSchema.optional().describe("`{branch}` or `{commit: <full sha>}`"),
  mount_path: z.string().min(1).optional(),
});

const sessionResourceSchema = z.discriminatedUnion("type", [gitRepositorySchema], {
  error: (issue) =>
    issue.code === "invalid_union"
      ? coded("AGENTS1001", 'session resource `type` must be "git_repository"')
      : undefined,
});

const deliveryEntry = strict({
  type: z.enum(["managed", "forward"]).describe("`forward` materializes the agent as a Forward Template"),
});
const deliveryShape: Record<string, z.ZodOptional<typeof deliveryEntry>> = {};
for (const entry of Object.values(PROVIDER_SPECS)) {
  const key = entry.capabilities.agents.deliveryKey;
  if (key) deliveryShape[key] = deliveryEntry.optional();
}

const modelMapShape = Object.fromEntries(
  Object.keys(PROVIDER_SPECS).map((name) => [name, z.string().min(1).optional()]),
) as Record<keyof typeof PROVIDER_SPECS, z.ZodOptional<z.ZodString>>;

export const agentSchema = strict({
  description: z.string().optional(),
  model: z
    .union([z.string().min(1), strict(modelMapShape)])
    .describe("a model id, or a map from provider name to model id"),
  instructions: z
    .string()
    .min(1)
    .describe("inline text, or a path to a .md/.txt file relative to agents.yaml (see Instructions)"),
  environment: z.string().optional().describe("a declared environment"),
  tunnel: z.string().optional().describe("a declared tunnel (provider_b BYOC only)"),
  provider: providerPin.optional(),
  tools: toolsSchema.optional(),
  mcp_servers: z.array(mcpServerSchema).optional(),
  skills: z.array(skillRef).optional(),
  vault: z.string().optional().describe("a declared vault"),
  memory_stores: z.array(z.string()).optional().describe("declared memory stores bound to the agent"),
  files: z.array(agentFileRef).optional(),
  default_memory_store: strict({
    name: z
      .string()
      .min(1, coded("AGENTS1214", "`default_memory_store.name` must be 1 to 255 characters"))
      .max(255, coded("AGENTS1214", "`default_memory_store.name` must be 1 to 255 characters"))
      .describe("display name of the store"),
    description: z
      .string()
      .max(1024, coded("AGENTS1215", "`default_memory_store.description` must be at most 1024 characters"))
      .optional()
      .describe("description of the store"),
    delete_on_destroy: z.boolean().optional().describe("default false: the Store is retained on destroy"),
  })
    .optional()
    .describe("provider_b Forward: the system-managed store per (Identity, Template)"),
  environment_variables: stringMap.optional().describe("provider_b only"),
  managed_tool_config: strict({
    enabled_tools: z
      .array(z.string())
      .optional()
      .describe("replaces the whole enabled set; `[]` turns all off"),
  })
    .optional()
    .describe("provider-operated tools; Forward delivery only"),
  delivery: strict(deliveryShape).optional().describe("per-provider delivery type"),
  resources: z.array(sessionResourceSchema).optional().describe("attached to every managed Session"),
  multiagent: strict({
    type: z.literal("coordinator").optional(),
    agents: z
      .array(
        z.union([
          z.string().min(1).describe("a project agent"),
          strict({ agent_id: z.string().min(1) }).describe("an external managed agent"),
        ]),
      )
      .min(1)
      .describe("roster members, at most 20"),
  })
    .optional()
    .describe("declares the agent a coordinator"),
  metadata: metadata.optional(),
  lifecycle: lifecycleSchema.optional(),
}).describe("a managed agent");
