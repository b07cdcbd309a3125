import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { KINDS } from "../../model/kinds.js";
import { parseFrontmatter } from "../../providers/common/frontmatter.js";
import { PROVIDER_NAMES, PROVIDER_SPECS } from "../../providers/specs.js";
import { OWNER_PROJECT_KEY, OWNER_RESOURCE_KEY } from "../../providers/types.js";
import type {
  EnvironmentDecl,
  IdentityDecl,
  MemoryStoreDecl,
  SkillDecl,
  VaultDecl,
} from "../schema/index.js";
import type { RuleContext } from "./context.js";

const SETUP_SCRIPT_LIMIT = 64 * 1024;

/** A declaration targeting a provider that lacks the kind is an error naming the alternative. */
export function checkKindSupport(ctx: RuleContext): void {
  for (const kind of KINDS) {
    for (const [name, spec] of ctx.declarations<{ provider?: string }>(kind)) {
      if (kind === "tunnels" && ctx.targets(spec, kind).length === 0 && ctx.only === undefined) {
        ctx.reportAtKey(
          "AGENTS1050",
          `tunnels.${name}: no declared provider supports BYOC tunnels`,
          [kind, name],
          `providers with tunnels: ${PROVIDER_NAMES.filter((p) => PROVIDER_SPECS[p].capabilities.kinds.tunnels.supported).join(", ")}`,
        );
      }
      for (const { provider, caps } of ctx.targets(spec, kind)) {
        const support = caps.kinds[kind];
        if (!support.supported) {
          ctx.reportAtKey(
            "AGENTS1050",
            `${kind}.${name}: ${provider} does not support ${kind}`,
            [kind, name],
            support.alternative,
          );
        }
      }
    }
  }
}

/**
 * `metadata` within the target provider's limits, counted as the provider receives it: with the
 * tool's ownership keys `agents.project` and `agents.resource` (a user key of the same name
 * replaces one rather than adding a pair). The handlers refuse the same maps
 * (providers/common/ownership.ts).
 */
export function checkMetadata(ctx: RuleContext): void {
  for (const kind of KINDS) {
    for (const [name, spec] of ctx.declarations<{ provider?: string; metadata?: Record<string, unknown> }>(
      kind,
    )) {
      const metadata = spec.metadata;
      if (!metadata || typeof metadata !== "object") continue;
      const base = [kind, name, "metadata"];
      for (const { provider, caps } of ctx.targets(spec, kind)) {
        const limits = caps.metadataLimits;
        if (!limits?.kinds.includes(kind)) continue;
        const keys = Object.keys(metadata);
        const pairs = new Set([OWNER_PROJECT_KEY, OWNER_RESOURCE_KEY, ...keys]).size;
        if (pairs > limits.pairs)
          ctx.report(
            "AGENTS1009",
            `${kind}.${name}: metadata has ${pairs} pairs with the tool's two ownership keys; ${provider} allows at most ${limits.pairs}`,
            base,
            `remove ${pairs - limits.pairs} key${pairs - limits.pairs === 1 ? "" : "s"} (at most ${limits.pairs - 2} of your own)`,
          );
        for (const [key, value] of Object.entries(metadata)) {
          if (key.length > limits.keyLength)
            ctx.reportAtKey(
              "AGENTS1009",
              `${kind}.${name}: metadata key "${key.slice(0, 20)}…" is ${key.length} characters; ${provider} allows at most ${limits.keyLength}`,
              [...base, key],
              `shorten the key to ${limits.keyLength} characters or fewer`,
            );
          const text = typeof value === "string" ? value : String(value);
          if (text.length > limits.valueLength)
            ctx.report(
              "AGENTS1009",
              `${kind}.${name}: metadata "${key}" is ${text.length} characters; ${provider} allows at most ${limits.valueLength}`,
              [...base, key],
              `shorten the value to ${limits.valueLength} characters or fewer, or keep the text elsewhere and put a reference here`,
            );
        }
      }
    }
  }
}

export function checkEnvironments(ctx: RuleContext): void {
  for (const [name, env] of ctx.declarations<EnvironmentDecl>("environments")) {
    const base = ["environments", name, "config"];
    const config = env.config;
    for (const { provider, caps } of ctx.targets(env)) {
      const rules = caps.environments;
      for (const manager of Object.keys(config.packages ?? {}) as (keyof NonNullable<
        typeof config.packages
      >)[]) {
        const list = config.packages?.[manager] ?? [];
        if (list.length > 0 && !rules.packageManagers.includes(manager)) {
          ctx.report(
            "AGENTS1100",
            `environments.${name}: ${provider} accepts only ${rules.packageManagers.join(", ")} packages, not ${manager}`,
            [...base, "packages", manager],
            `install ${manager} packages from \`setup_script\` or use ${rules.packageManagers.join("/")} packages`,
          );
        }
      }
      if (config.setup_script !== undefined) {
        if (!rules.setupScript.supported) {
          ctx.report(
            "AGENTS1101",
            `environments.${name}: ${provider} does not run \`setup_script\``,
            [...base, "setup_script"],
            rules.setupScript.alternative,
          );
        } else if (Buffer.byteLength(config.setup_script, "utf8") > SETUP_SCRIPT_LIMIT) {
          ctx.report(
            "AGENTS1102",
            `environments.${name}: \`setup_script\` is ${Buffer.byteLength(config.setup_script, "utf8")} bytes; the limit is 65536 (64 KB UTF-8)`,
            [...base, "setup_script"],
            "move the bulk into packages or a script fetched at run time",
          );
        }
      }
      if (config.type === "self_hosted") {
        if (!rules.selfHosted.supported) {
          ctx.report(
            "AGENTS1104",
            `environments.${name}: ${provider} has no self_hosted environments`,
            [...base, "type"],
            rules.selfHosted.alternative,
          );
        } else if (rules.selfHostedConfigIsMinimal && env.environment_id === undefined) {
          for (const field of ["networking", "packages"] as const) {
            if (config[field] !== undefined) {
              ctx.report(
                "AGENTS1103",
                `environments.${name}: a managed ${provider} self_hosted environment accepts only \`type\` and \`setup_script\` in config, not \`${field}\``,
                [...base, field],
                `remove \`${field}\` (it belongs to cloud environments)`,
              );
            }
          }
        }
      }
      if (config.networking?.type === "limited" && !rules.limitedNetworking.supported) {
        ctx.report(
          "AGENTS1105",
          `environments.${name}: ${provider} does not support limited networking`,
          [...base, "networking", "type"],
          rules.limitedNetworking.alternative,
        );
      }
    }
  }
}

export function checkVaults(ctx: RuleContext): void {
  for (const [name, vault] of ctx.declarations<VaultDecl>("vaults")) {
    const seen = new Set<string>();
    vault.credentials?.forEach((credential, index) => {
      const path = ["vaults", name, "credentials", index];
      if (seen.has(credential.name)) {
        ctx.report(
          "AGENTS1112",
          `vaults.${name}: credential "${credential.name}" is declared twice`,
          [...path, "name"],
          "give each credential of a vault its own name",
        );
      }
      seen.add(credential.name);
      if (
        credential.type === "environment_variable" &&
        credential.networking?.type === "limited" &&
        (credential.networking.allowed_hosts ?? []).length === 0
      ) {
        ctx.report(
          "AGENTS1111",
          `vaults.${name}: credential "${credential.name}" has limited networking but no allowed_hosts`,
          [...path, "networking"],
          "list the hosts in `allowed_hosts` (use `*` to allow all hosts)",
        );
      }
      const networking = credential.type === "environment_variable" ? credential.networking : undefined;
      const hosts = networking?.allowed_hosts;
      if (networking?.type === "unrestricted" && hosts && !(hosts.length === 1 && hosts[0] === "*")) {
        ctx.report(
          "AGENTS1114",
          `vaults.${name}: credential "${credential.name}" has unrestricted networking and a host list`,
          [...path, "networking", "allowed_hosts"],
          "use `type: limited` with the host list, or remove `allowed_hosts` for all hosts",
        );
      } else if (networking?.type === undefined && hosts?.length === 0) {
        ctx.report(
          "AGENTS1114",
          `vaults.${name}: credential "${credential.name}" has an empty \`allowed_hosts\``,
          [...path, "networking", "allowed_hosts"],
          'list at least one host, or `"*"` for all hosts',
        );
      }
      for (const { provider, caps } of ctx.targets(vault)) {
        const support = caps.credentialTypes[credential.type];
        if (!support.supported) {
          ctx.report(
            "AGENTS1110",
            `vaults.${name}: ${provider} does not accept ${credential.type} credentials`,
            [...path, "type"],
            support.alternative,
          );
        } else if (
          credential.type === "static_bearer" &&
          credential.protocol !== undefined &&
          !caps.credentialProtocol.supported
        ) {
          // The spec allows it on every static_bearer credential, so the file stays valid; the
          // provider's wire has no such field, so it is not sent and the diff leaves it out
          // (the comparison form drops it), which keeps plans from flapping.
          ctx.warn(
            "AGENTS1113",
            `vaults.${name}: ${provider} does not carry a static_bearer credential's \`protocol\`; it is not sent`,
            [...path, "protocol"],
            caps.credentialProtocol.alternative,
          );
        }
      }
    });
  }
}

const MANAGED_IDENTITY_FIELDS = ["external_id", "name", "enabled", "metadata"] as const;

export function checkIdentities(ctx: RuleContext): void {
  for (const [name, identity] of ctx.declarations<IdentityDecl>("identities")) {
    const managed = MANAGED_IDENTITY_FIELDS.filter((field) => identity[field] !== undefined);
    if (identity.identity_id !== undefined && managed.length > 0) {
      ctx.report(
        "AGENTS1120",
        `identities.${name}: \`identity_id\` (external reference) cannot be combined with ${managed.map((f) => `\`${f}\``).join(", ")} (managed form)`,
        ["identities", name, managed[0]!],
        "keep `identity_id` to reference an existing identity, or remove it to let the tool manage one",
      );
    } else if (identity.identity_id === undefined && identity.external_id === undefined) {
      ctx.reportAtKey(
        "AGENTS1120",
        `identities.${name}: give \`external_id\` (managed identity) or \`identity_id\` (existing identity)`,
        ["identities", name],
        "external_id is your product's stable user id; identity_id (idn_...) references an identity that already exists",
      );
    }
  }
}

/** The text of `<dir>/SKILL.md`, or undefined when the directory has none (or cannot be read). */
function skillMd(dir: string): string | undefined {
  try {
    if (!statSync(join(dir, "SKILL.md")).isFile()) return undefined;
    return readFileSync(join(dir, "SKILL.md"), "utf8");
  } catch {
    return undefined;
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * What apply's upload of a skill refuses, said at validate: an `origin: official` declaration
 * (official skills are referenced, not uploaded), a directory without SKILL.md at its root, and a
 * SKILL.md without frontmatter `name` where the provider names the skill after it. A source that
 * does not exist is AGENTS1020 (paths.ts), and is not read again here.
 */
export function checkSkills(ctx: RuleContext): void {
  for (const [name, skill] of ctx.declarations<SkillDecl>("skills")) {
    if (skill.origin === "official") {
      ctx.report(
        "AGENTS1130",
        `skills.${name}: an official skill is not uploaded`,
        ["skills", name, "origin"],
        "remove this declaration and reference the skill from the agent: `skills: [{type: official, skill_id: <id>}]`",
      );
      continue;
    }
    if (!isDirectory(skill.source)) continue;
    const text = skillMd(skill.source);
    if (text === undefined) {
      ctx.report(
        "AGENTS1022",
        `skills.${name}: the skill directory has no SKILL.md at its root`,
        ["skills", name, "source"],
        "add a SKILL.md (frontmatter `name` and `description`, then the instructions) at the top of the directory",
      );
      continue;
    }
    if (parseFrontmatter(text).name) continue;
    for (const { provider, caps } of ctx.targets(skill)) {
      if (!caps.skills?.frontmatterNameRequired) continue;
      ctx.report(
        "AGENTS1023",
        `skills.${name}: SKILL.md has no frontmatter \`name\`; ${provider} names the skill after it`,
        ["skills", name, "source"],
        "start SKILL.md with a frontmatter block: `---`, `name: <skill-name>`, `description: <what it does>`, `---`",
      );
    }
  }
}

/**
 * Memory entry keys as every provider's memory API takes them: a relative path (a leading `/` is
 * dropped, empty segments too), no `.` or `..` segment, within the provider's depth and length
 * limits, and each path once per store.
 */
export function checkMemoryStores(ctx: RuleContext): void {
  for (const [name, store] of ctx.declarations<MemoryStoreDecl>("memory_stores")) {
    const seen = new Set<string>();
    store.entries?.forEach((entry, index) => {
      const path = ["memory_stores", name, "entries", index, "key"];
      const segments = entry.key
        .normalize("NFC")
        .split("/")
        .filter((s) => s !== "");
      const normalized = `/${segments.join("/")}`;
      if (segments.length === 0 || segments.some((s) => s === "." || s === "..")) {
        ctx.report(
          "AGENTS1140",
          `memory_stores.${name}: entry key "${entry.key}" is not a relative path`,
          path,
          'give a path like `notes/today.md`, without "." or ".." segments',
        );
        return;
      }
      for (const { provider, caps } of ctx.targets(store)) {
        const limits = caps.memoryKeyLimits;
        if (!limits) continue;
        if (segments.length > limits.segments || Buffer.byteLength(normalized, "utf8") > limits.bytes)
          ctx.report(
            "AGENTS1140",
            `memory_stores.${name}: entry key "${entry.key}" exceeds ${provider}'s limit of ${limits.segments} segments and ${limits.bytes} bytes`,
            path,
            "use a shorter path",
          );
      }
      if (seen.has(normalized))
        ctx.report(
          "AGENTS1141",
          `memory_stores.${name}: entry path ${normalized} is declared twice`,
          path,
          "keep one entry per path (a leading `/` names the same path)",
        );
      seen.add(normalized);
    });
  }
}
