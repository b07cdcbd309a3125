import { z } from "zod";
import {
  coded,
  metadata,
  providerPin,
  scalarMetadata,
  strict,
  stringOrNumber,
} from "../../model/schema-helpers.js";
import { lifecycleSchema } from "./lifecycle.js";

const stringList = z.array(z.string());

const networkingSchema = strict({
  type: z.enum(["unrestricted", "limited"]).optional().describe("network policy; default `unrestricted`"),
  allow_mcp_servers: z.boolean().optional().describe("allow outbound MCP connections"),
  allow_package_managers: z.boolean().optional().describe("allow package-manager hosts"),
  allowed_hosts: stringList.optional().describe("allow-list for `limited` networks"),
});

const packagesSchema = strict({
  apt: stringList.optional().describe("Debian packages"),
  pip: stringList.optional().describe("Python packages"),
  npm: stringList.optional().describe("npm packages"),
  cargo: stringList.optional().describe("Rust crates (not provider_b)"),
  gem: stringList.optional().describe("Ruby gems (not provider_b)"),
  go: stringList.optional().describe("Go modules (not provider_b)"),
}).describe("preinstalled packages");

export const environmentSchema = strict({
  name: z.string().optional().describe("display name; defaults to the YAML key"),
  description: z.string().optional(),
  provider: providerPin.optional(),
  environment_id: z
    .string()
    .min(1)
    .optional()
    .describe("existing remote environment; never created, updated or deleted by the tool"),
  config: strict({
    type: z.enum(["cloud", "self_hosted"]).describe("`self_hosted` is BYOC on provider_b"),
    networking: networkingSchema.optional().describe("network policy (cloud environments)"),
    packages: packagesSchema.optional(),
    setup_script: z
      .string()
      .optional()
      .describe("provider_b only: run with `/bin/bash -lc` after packages; at most 64 KB UTF-8"),
  }).describe("runtime configuration"),
  metadata: metadata.optional(),
  lifecycle: lifecycleSchema.optional(),
}).describe("a cloud runtime for agent sessions");

export const tunnelSchema = strict({
  tunnel_id: z
    .string()
    .regex(/^tnl_/, coded("AGENTS1125", "`tunnel_id` must begin with `tnl_`"))
    .describe("id of an existing provider_b BYOC tunnel, prefix `tnl_`; never created or deleted"),
  lifecycle: lifecycleSchema.optional(),
}).describe("an existing provider_b BYOC tunnel");

const staticBearer = strict({
  name: z.string().min(1),
  type: z.literal("static_bearer"),
  mcp_server_url: z.string().min(1).describe("MCP server the bearer token is sent to"),
  access_token: stringOrNumber.describe("bearer token (write it as `${VAR}`)"),
  protocol: z.enum(["sse", "streamable_http"]).optional().describe("MCP transport"),
}).describe("a bearer token for one MCP server");

const environmentVariable = strict({
  name: z.string().min(1),
  type: z.literal("environment_variable"),
  secret_name: z.string().min(1).describe("variable name the secret is exposed as"),
  secret_value: stringOrNumber.describe("secret value (write it as `${VAR}`)"),
  networking: strict({
    type: z.enum(["unrestricted", "limited"]).optional().describe("legacy policy type"),
    allowed_hosts: stringList
      .optional()
      .describe("hosts where the secret may be substituted: exact host, `*.domain` pattern, or `*` for all"),
  })
    .optional()
    .describe("where the secret may be injected"),
  injection_location: strict({
    header: z.boolean().optional().describe("allow replacement in request headers"),
    body: z.boolean().optional().describe("allow replacement in request bodies"),
  }).optional(),
}).describe("a secret exposed to the sandbox as an environment variable");

const credentialSchema = z.discriminatedUnion("type", [staticBearer, environmentVariable], {
  error: (issue) =>
    issue.code === "invalid_union"
      ? coded("AGENTS1001", 'credential `type` must be "static_bearer" or "environment_variable"')
      : undefined,
});

export const vaultSchema = strict({
  display_name: z.string().optional(),
  provider: providerPin.optional(),
  credentials: z.array(credentialSchema).optional(),
  metadata: metadata.optional(),
  lifecycle: lifecycleSchema.optional(),
}).describe("a credential store");

export const memoryStoreSchema = strict({
  description: z.string().optional(),
  provider: providerPin.optional(),
  metadata: metadata.optional(),
  entries: z
    .array(strict({ key: z.string().min(1).describe("memory path"), content: z.string() }))
    .optional()
    .describe("managed seeds: apply creates or updates these paths and keeps other memories"),
  lifecycle: lifecycleSchema.optional(),
}).describe("persistent agent context (not provider_a)");

export const skillSchema = strict({
  source: z.string().min(1).describe("path to the skill directory, relative to agents.yaml"),
  description: z.string().optional(),
  version: z.string().optional(),
  origin: z.enum(["custom", "official"]).optional(),
  provider: providerPin.optional(),
  lifecycle: lifecycleSchema.optional(),
}).describe("a reusable capability module uploaded from a local directory");

export const fileSchema = strict({
  source: z.string().min(1).describe("local path, relative to agents.yaml; uploaded under its basename"),
  name: z.string().optional().describe("local label only; does not override the uploaded filename"),
  purpose: z.string().optional(),
  provider: providerPin.optional(),
  lifecycle: lifecycleSchema.optional(),
}).describe("a local file uploaded to the provider's files API (provider_a, provider_d)");

export const identitySchema = strict({
  provider: providerPin.optional(),
  external_id: z.string().min(1).optional().describe("managed form: the product's stable end-user id"),
  name: z.string().optional().describe("managed form"),
  enabled: z.boolean().optional().describe("managed form"),
  metadata: scalarMetadata.optional().describe("managed form; numbers and booleans are sent as text"),
  identity_id: z
    .string()
    .regex(/^idn_/, coded("AGENTS1121", "`identity_id` must begin with `idn_`"))
    .optional()
    .describe("external form: existing remote identity, prefix `idn_`; verified, never changed"),
  lifecycle: lifecycleSchema.optional(),
}).describe("a stable end-user identity: managed (`external_id`) or an external reference (`identity_id`)");
