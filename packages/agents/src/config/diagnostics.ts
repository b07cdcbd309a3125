/** One finding about an agents.yaml file, anchored at the offending node. */
export interface Diagnostic {
  code: string;
  severity: "error" | "warning";
  message: string;
  file: string;
  line: number;
  col: number;
  hint?: string;
  path?: (string | number)[];
}

/** The configuration has errors: the message lists them, formatted; the diagnostics are the data. */
export class ConfigError extends Error {
  constructor(
    message: string,
    readonly diagnostics: readonly Diagnostic[],
  ) {
    super(message);
    this.name = "ConfigError";
  }
}

export interface SourcePos {
  file: string;
  line: number;
  col: number;
}

/**
 * Every diagnostic code the loader can emit, with the rule it enforces. Codes are stable: tools
 * and users match on them, so a code is never reused for a different rule.
 */
export const DIAGNOSTIC_CODES = {
  AGENTS1000: "YAML syntax error (the file cannot be parsed)",
  AGENTS1001: "a value has the wrong type or is not one of the allowed values",
  AGENTS1002: "unknown field (with a did-you-mean suggestion)",
  AGENTS1003: "a required field is missing",
  AGENTS1004: '`version` must be the string "1"',
  AGENTS1005: "the file is empty or its top level is not a mapping",
  AGENTS1006: "the configuration file cannot be read",
  AGENTS1007:
    "a secret (api_key, access_token, secret_value, authorization_token, channel credentials) is written inline instead of as `${VAR}` (warning)",
  AGENTS1008:
    "a git repository `authorization_token` is written inline instead of as `${VAR}` (its value is never written in the file)",
  AGENTS1009:
    "`metadata` exceeds the target provider's limits: too many pairs (counting the tool's two ownership keys), a key or a value too long",
  AGENTS1010: "`${VAR}` names a variable that is neither in the environment nor in .env",
  AGENTS1011: "malformed `${...}` reference (variable names are [A-Za-z_][A-Za-z0-9_]*)",
  AGENTS1020:
    "a referenced local path (instructions, skills.source, files.source, rubric_file, resource source) does not exist",
  AGENTS1021:
    "`skills.<name>.source` must be a directory, `files`/`rubric_file`/instructions paths must be files",
  AGENTS1022: "a skill directory has no `SKILL.md` at its root",
  AGENTS1023: "a skill's `SKILL.md` frontmatter has no `name`, on a provider that names the skill after it",
  AGENTS1030: "`providers` is empty: declare at least one provider block",
  AGENTS1031: "a provider key under `providers` is not a known provider",
  AGENTS1032:
    "a `provider` field or `defaults.provider` names a provider that is not declared under `providers`",
  AGENTS1033:
    "the target provider cannot be determined (several providers, no `provider` and no `defaults.provider`)",
  AGENTS1034: "`defaults.identity` names an identity that is not declared",
  AGENTS1035:
    "a provider-specific value has the wrong shape (e.g. provider_a `workspace_id` must begin with `llm-`)",
  AGENTS1036:
    "a provider endpoint (`base_url`, `gateway`) is plain http:// to a host that is not loopback (the API key would travel in clear text) and the block does not set `allow_insecure_http: true`",
  AGENTS1037:
    "a git repository `checkout` is `{branch}` or `{commit: <full 40-character sha>}`: one of them, and a full commit SHA",
  AGENTS1040: "a reference names a resource that is not declared (with a did-you-mean suggestion)",
  AGENTS1041: "a reference names a resource declared only for other providers",
  AGENTS1050: "the resource kind is not supported by the target provider (the message names the alternative)",
  AGENTS1051: "a feature is not supported by the target provider (the message names the alternative)",
  AGENTS1052: "a per-provider `model` map has no entry for a target provider",
  AGENTS1060: "`state.backend: postgres` needs `url` (write it as `${VAR}`)",
  AGENTS1061:
    "a `state` field that belongs to the other backend (`path` is for file; `url`, `workspace`, `schema` for postgres)",
  AGENTS1062: "`state.url` is written inline with a password instead of as `${VAR}`",
  AGENTS1063: "`state.url` is not a postgres:// or postgresql:// URL",
  AGENTS1064:
    "`state.backend: postgres` without `workspace`: the workspace is then the folder's name, so a clone in a folder of another name reads another, empty state (warning)",
  AGENTS1070:
    'an address in `moved`, `import` or `removed` is not written as plans print it (`provider.kind["name"]`), or names an unknown provider or kind',
  AGENTS1071:
    "a `moved` entry changes the provider or the kind (a move renames within one provider and kind)",
  AGENTS1072: "the `from` of a `moved` or `removed` entry is still declared in the file",
  AGENTS1073:
    "the `to` of a `moved` or `import` entry is not declared in the file (nor continued by another move)",
  AGENTS1074:
    "two `moved`/`import`/`removed` entries claim one address (or one imported id), or moves form a cycle",
  AGENTS1075: "an `import` entry names an external reference (`environment_id`, `identity_id`, a tunnel)",
  AGENTS1100: "provider_b accepts only apt, npm and pip packages (non-empty cargo/gem/go rejected)",
  AGENTS1101: "`setup_script` is only supported by provider_b",
  AGENTS1102: "`setup_script` exceeds 64 KB of UTF-8",
  AGENTS1103:
    "a managed provider_b `self_hosted` environment accepts only `type` and `setup_script` in `config`",
  AGENTS1104: "`self_hosted` environments are not supported by the target provider",
  AGENTS1105: "`limited` networking is not supported by the target provider",
  AGENTS1110: "the credential type is not supported by the target provider",
  AGENTS1111:
    "a credential with `limited` networking must list `allowed_hosts` (it is never widened implicitly)",
  AGENTS1112: "two credentials of one vault share a name",
  AGENTS1113:
    "`protocol` on a static_bearer credential of a provider whose wire has no transport field: it is not sent (warning)",
  AGENTS1114:
    'a credential\'s `networking` contradicts itself: `unrestricted` with a host list other than `["*"]`, or an empty `allowed_hosts`',
  AGENTS1130:
    "a skill declared with `origin: official` (official skills are referenced from agents, never uploaded)",
  AGENTS1140:
    "a memory entry `key` is not a relative path (empty, or a `.` or `..` segment), or exceeds the provider's depth or length limit",
  AGENTS1141: "two entries of one memory store have the same path (a leading `/` does not count)",
  AGENTS1120:
    "an identity mixes the managed form (external_id, name, enabled, metadata) with the external form (identity_id), or has neither",
  AGENTS1121: "`identity_id` must begin with `idn_`",
  AGENTS1125: "`tunnel_id` must begin with `tnl_`",
  AGENTS1200: "`tools.builtin` names a tool the target provider does not offer",
  AGENTS1201: "`tools.permissions` names an unknown tool",
  AGENTS1202: "`tools.permissions` names one tool twice once case and separators are ignored",
  AGENTS1203: "the `ask` permission is not supported by the target provider",
  AGENTS1204: "`tools.permissions` sets a tool that is not enabled in `tools.builtin` (warning)",
  AGENTS1205: "an MCP toolkit gives a field in both snake_case and camelCase, or lacks `mcp_server_name`",
  AGENTS1206: "`tools.mcp[].mcp_server_name` does not match an entry of `mcp_servers`",
  AGENTS1207:
    "the `mcp_servers` entry form (by URL or official by name) is not supported by the target provider",
  AGENTS1208:
    "an `mcp_servers` entry is malformed (URL form needs `url`, official form takes none) or its name is duplicated",
  AGENTS1209:
    "`tools.permissions` sets a tool that `tools.builtin` does not enable, on a provider whose API refuses it",
  AGENTS1210: "`managed_tool_config` requires Forward delivery",
  AGENTS1211: "`default_memory_store` requires Forward delivery",
  AGENTS1212: "`default_memory_store` requires `defaults.identity`",
  AGENTS1213:
    "`delete_on_destroy: true` requires an identity managed by the tool (not an external `identity_id`)",
  AGENTS1214: "`default_memory_store.name` must be 1 to 255 characters",
  AGENTS1215: "`default_memory_store.description` must be at most 1024 characters",
  AGENTS1216: "`delivery.<provider>` names a provider the agent does not target; it is ignored (warning)",
  AGENTS1217: "agent `environment_variables` are not supported by the target provider",
  AGENTS1218: "explicit memory stores of a Forward agent require `defaults.identity`",
  AGENTS1219: "one locally managed resource is shared by Managed and Forward agents of a provider",
  AGENTS1221:
    "`networking: limited` on an environment used by a Forward agent of a provider whose Forward environments take no networking policy",
  AGENTS1220: "session resources (`git_repository`) are not supported by the target provider",
  AGENTS1222:
    "an agent file given as a path (the string form of `files`) on an agent without Forward delivery",
  AGENTS1223: "a Forward agent without `environment` on a provider whose Forward Templates need one",
  AGENTS1224:
    "an agent `environment_variables` name is not an identifier (letters, digits and `_`, not starting with a digit)",
  AGENTS1225:
    'an agent `environment_variables` value contains ";", which provider_b\'s managed session form cannot carry: `agents session start` refuses the agent (warning)',
  AGENTS1300: "a multi-agent roster has more than 20 members",
  AGENTS1301: "a coordinator lists itself as a member",
  AGENTS1302: "a roster member is itself a coordinator (nested coordinators are not allowed)",
  AGENTS1303: "roster members form a cycle",
  AGENTS1304: "`{agent_id}` members are not accepted by a Forward coordinator",
  AGENTS1305: "a roster member uses a different delivery type than its coordinator",
  AGENTS1306: "a roster lists one member twice",
  AGENTS1401: "two resources of one session or deployment mount at the same path",
  AGENTS1400:
    "a mount path is not under the provider's mount root (absolute paths must already use it; relative ones may not climb out with ..)",
  AGENTS1508: "`user.define_outcome` without `description` on a provider whose API requires it",
  AGENTS1509: "a deployment `file` resource without `mount_path` on a provider whose API requires it",
  AGENTS1500: "`initial_events` must have 1 to 50 entries",
  AGENTS1501: "`max_iterations` must be an integer from 1 to 20",
  AGENTS1502: "`rubric` and `rubric_file` are alternatives: give at most one",
  AGENTS1503: "`schedule.expression` is not a valid 5-field cron expression",
  AGENTS1504: "`schedule.timezone` is not a known IANA time zone",
  AGENTS1505: "the provider's deployment API takes no tunnel: it is dropped (warning)",
  AGENTS1506: "the provider does not run deployment schedules itself (warning)",
  AGENTS1507: "a deployment `file` resource needs `file_id` or `source`",
  AGENTS1510: "a deployment without `environment` on a provider whose API requires one",
  AGENTS1511:
    "a deployment without a `user.message` or `system.message` initial event on a provider whose API requires one",
  AGENTS1512: "a `user.define_outcome` event on a provider that has none: it is not sent (warning)",
  AGENTS1513: "a deployment of a Forward agent on a provider that cannot deploy Forward agents",
  AGENTS1600: "a `fixed` channel needs an `agent`",
  AGENTS1601: "a `fixed` channel needs an `identity` (or `defaults.identity`)",
  AGENTS1602: "a `pairing` channel ignores `agent` and `identity` (warning)",
  AGENTS1603: "a `fixed` channel of this provider requires its agent to use Forward delivery",
  AGENTS1604: "the channel `type` is not offered by the target provider",
  AGENTS1605: "a credential-based channel type lacks required credential keys",
  AGENTS1606: "a QR-only channel type (no credential keys) is given `credentials`",
  AGENTS1800:
    "`lifecycle.ignore_changes` names a field the kind does not have (with a did-you-mean suggestion)",
  AGENTS1801:
    "`lifecycle.create_before_destroy` on a kind whose names the provider keeps unique (the old and the new object cannot exist at once)",
  AGENTS1802:
    "`lifecycle` on an external reference, which agents never creates, updates or deletes (warning)",
  AGENTS1803:
    "`lifecycle.ignore_changes` names a field of a kind compared by its uploaded content (files, skills): only `all` is taken",
} as const;

export type DiagnosticCode = keyof typeof DIAGNOSTIC_CODES;

/**
 * File, line, column, code. Equal texts are told apart without `localeCompare`: its first call
 * loads the collation data (tens of milliseconds), which a file's diagnostics, all of one file and
 * mostly of distinct places, seldom need.
 */
export function compareDiagnostics(a: Diagnostic, b: Diagnostic): number {
  return collate(a.file, b.file) || a.line - b.line || a.col - b.col || collate(a.code, b.code);
}

function collate(a: string, b: string): number {
  return a === b ? 0 : a.localeCompare(b);
}
