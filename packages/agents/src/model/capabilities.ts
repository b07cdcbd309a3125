import type { Kind } from "./kinds.js";

/** A capability is either available or unavailable with a pointer to what to use instead. */
export type Support = { supported: true } | { supported: false; alternative: string };

export const SUPPORTED: Support = { supported: true };
export function unsupported(alternative: string): Support {
  return { supported: false, alternative };
}

type PackageManager = "apt" | "pip" | "npm" | "cargo" | "gem" | "go";
type CredentialType = "static_bearer" | "environment_variable";
type McpServerForm = "url" | "official";

/**
 * What one provider supports, as data. The validation core reads these facts and never asks
 * "which provider is this?" — adding a provider means adding one of these, not editing rules.
 */
export interface ProviderCapabilities {
  name: string;
  kinds: Record<Kind, Support>;
  /** Root under which relative mount paths are placed; absolute paths must already use it. */
  mountRoot: string;
  /** Where a git repository is mounted when `mount_path` is omitted: `<root>/<repo name>`. */
  repositoryMountRoot?: string;
  environments: {
    packageManagers: readonly PackageManager[];
    setupScript: Support;
    selfHosted: Support;
    /** When true a managed self_hosted environment takes only `type` and `setup_script`. */
    selfHostedConfigIsMinimal: boolean;
    limitedNetworking: Support;
  };
  credentialTypes: Record<CredentialType, Support>;
  /** Whether a `static_bearer` credential's `protocol` (MCP transport) is carried on the wire. */
  credentialProtocol: Support;
  agents: {
    /**
     * Whether the environment of a Forward agent keeps its `networking` policy. Unsupported:
     * `networking: limited` is refused rather than silently loosened.
     */
    forwardEnvironmentNetworking: Support;
    /** Builtin tool names in their canonical lowercase form. */
    builtinTools: readonly string[];
    /** The API refuses a permission for a tool that `tools.builtin` does not enable (others ignore it). */
    permissionNeedsBuiltin?: boolean;
    askPermission: Support;
    mcpServerForms: readonly McpServerForm[];
    environmentVariables: Support;
    /**
     * A character a value cannot carry in the provider's Managed session form (it separates the
     * pairs and has no escape): `agents session start` refuses such an agent, so validate warns.
     */
    sessionEnvironmentValueForbids?: string;
    /** Key under `delivery` that selects this provider's delivery type, when it has a choice. */
    deliveryKey?: string;
    forwardDelivery: Support;
    sessionResources: Support;
    /** Forward coordinators: whether external `{agent_id}` members are accepted. */
    forwardAcceptsExternalMembers: boolean;
    /** A Forward agent needs `environment` (its Template is created with one). */
    forwardEnvironmentRequired?: boolean;
  };
  deployments: {
    /** "dropped": the API takes no tunnel, it is removed with a warning. */
    tunnel: "supported" | "dropped" | "unsupported";
    schedule: "native" | "not_enforced";
    /** A `file` resource of a deployment needs `mount_path` on the wire. */
    fileMountPathRequired: boolean;
    /** `user.define_outcome` initial events need `description` on the wire. */
    outcomeDescriptionRequired: boolean;
    /**
     * A deployment needs `environment` (the API refuses an empty environment id); "or_agent": the
     * environment of its agent stands in when the deployment gives none.
     */
    environmentRequired?: boolean | "or_agent";
    /** A deployment needs `initial_events` (the API refuses a deployment without one). */
    initialEventsRequired?: boolean;
    /** A deployment needs at least one `user.message` or `system.message` initial event. */
    messageEventRequired?: boolean;
    /** "dropped": the API has no `user.define_outcome` event; it is left out with a warning. */
    outcomeEvent?: "sent" | "dropped";
    /** Whether an agent with Forward delivery can be deployed. */
    forwardAgents?: Support;
  };
  /** Limits on a memory entry's key (its path) beyond being relative without `.`/`..` segments. */
  memoryKeyLimits?: { segments: number; bytes: number };
  /**
   * Limits on a `metadata` map as the provider receives it (with the tool's two ownership keys),
   * for the kinds whose metadata the provider stores.
   */
  metadataLimits?: { pairs: number; keyLength: number; valueLength: number; kinds: readonly Kind[] };
  /** What an uploaded skill directory needs beyond a SKILL.md at its root. */
  skills?: {
    /** The provider names the skill after its SKILL.md frontmatter `name`, so the field is required. */
    frontmatterNameRequired?: boolean;
  };
  /**
   * Kinds whose live objects the provider keeps unique by a field (the string names it): an old
   * and a new object holding one value cannot exist at once, so `lifecycle.create_before_destroy`
   * is refused there. Kinds not listed may hold both at once.
   */
  uniqueNames?: Partial<Record<Kind, string>>;
  channels: {
    fixedModeRequiresForwardAgent: boolean;
    /** Channel types and the credential keys each requires (empty = QR-only, no credentials). */
    types: Readonly<Record<string, readonly string[]>>;
  };
}
