import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { ConfigError } from "../config.js";
import type { ToolResult } from "../mcp/catalogue.js";

/**
 * GITLAB_MASKING_ENABLED: what a tool answers is masked before the model reads it. Built in: every
 * GitLab token (its prefix and at least 20 characters of body, a routable token's dotted tail
 * included) and IPv4 and IPv6 addresses; the operator adds keywords and regular expressions in a
 * JSON file (GITLAB_MASKING_CONFIG), or binds policies to projects (GITLAB_MASKING_POLICY_FILE).
 * The files read as gitlab-mcp 2.1.64 reads them, so a deployment moves over unchanged:
 *
 *   config: { version?: 1, rules?: [{ id, type: "keyword", match, caseSensitive?, replacement }
 *                                  | { id, type: "regex", pattern, flags?, replacement }],
 *             builtins?: { "gitlab-token" | "ipv4" | "ipv6": { enabled?: false, replacement? } } }
 *           or a managed reference { mode: "managed", version: 2, policyGroup }
 *   policy: { version: 1, policyGroups: { <name>: config }, bindings: [{ gitlabInstance,
 *             policyGroup, projectIds: [positive integers] }], unboundProjectBehavior?: "deny" | "builtin" }
 *
 * Under a policy, a project named by path or URL is resolved to its id first (the catalogue asks
 * src/forge/project-ids.ts, with the caller's token) and the call runs by that id.
 *
 * Masking rewrites string values only (never object keys, numbers or booleans), so structured
 * content keeps its types and still validates against the tool's outputSchema; the text block is
 * masked the same way (as the JSON it is, or as plain text: job logs, files). Overlapping matches
 * are replaced as one span. A secret its author split over two fields is two strings: each is
 * masked on its own or not at all.
 */

/** One compiled rule: a global expression, and an optional check of each match (IPv6). */
interface Rule {
  id: string;
  replacement: string;
  expression: RegExp;
  accept?: (match: string) => boolean;
}

const TOKEN_PREFIXES = [
  "glpat",
  "glrt",
  "glptt",
  "gldt",
  "glcbt",
  "glsoat",
  "gloas",
  "glagent",
  "glft",
  "glimt",
];
const OCTET = "(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)";

const BUILTINS: readonly Rule[] = [
  {
    id: "gitlab-token",
    replacement: "[Token masked]",
    // GitLab's documented prefixes; a routable token continues with `.<segments>`
    expression: new RegExp(
      `(?<![A-Za-z0-9_-])(?:${TOKEN_PREFIXES.join("|")})-[A-Za-z0-9_-]{20,}(?:\\.[A-Za-z0-9_-]+)*`,
      "g",
    ),
  },
  {
    id: "ipv4",
    replacement: "[IP address]",
    // a dotted quad standing alone: not inside a word (v1.2.3.4) nor a longer dotted number (1.2.3.4.5)
    expression: new RegExp(`(?<![\\w.])${OCTET}(?:\\.${OCTET}){3}(?!\\w|\\.\\d)`, "g"),
  },
  {
    id: "ipv6",
    replacement: "[IP address]",
    // a run of hex digits and colons standing alone (not `std::vector`, not `Foo::Bar`), kept
    // when it reads as an IPv6 address and holds a digit (no hex word such as `add::face`), so
    // times (12:30:45) and MAC addresses never match
    expression: /(?<![\w:.])[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){2,7}(?:\.\d{1,3}){0,3}(?![\w:])/g,
    accept: (m) => /\d/.test(m) && isIPv6(m),
  },
];
/** Whether a run of hex digits, colons and an optional dotted IPv4 tail is an IPv6 address. */
function isIPv6(s: string): boolean {
  let groups = 0;
  let text = s;
  const v4 = /:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(s);
  if (v4) {
    if (v4[1]!.split(".").some((o) => Number(o) > 255)) return false;
    groups = 2;
    // the hex part with its last colon, kept when it is half of a "::"
    text = s.slice(0, v4.index + 1);
    if (!text.endsWith("::")) text = text.slice(0, -1);
  } else if (s.includes(".")) return false;
  const halves = text.split("::");
  if (halves.length > 2) return false;
  const parts = halves.map((h) => (h === "" ? [] : h.split(":")));
  if (parts.some((p) => p.some((g) => !/^[0-9A-Fa-f]{1,4}$/.test(g)))) return false;
  groups += parts.reduce((n, p) => n + p.length, 0);
  return halves.length === 2 ? groups <= 7 : groups === 8;
}

const BUILTIN_IDS = new Set(BUILTINS.map((r) => r.id));
const REGEX_FLAGS = /^[gimsu]*$/;

/** One masking policy: rewrites strings. */
export class Masker {
  constructor(private readonly rules: readonly Rule[]) {}

  /** A string with every match replaced (overlapping matches as one span, the first rule's text). */
  text(s: string): string {
    const spans: Array<{ start: number; end: number; replacement: string }> = [];
    for (const r of this.rules) {
      for (const m of s.matchAll(r.expression)) {
        if (m[0].length === 0 || (r.accept && !r.accept(m[0]))) continue;
        spans.push({ start: m.index, end: m.index + m[0].length, replacement: r.replacement });
      }
    }
    if (spans.length === 0) return s;
    // by start, the longest first (then the rules' order): overlapping spans become one, so no
    // tail of a longer secret survives behind a shorter match
    spans.sort((a, b) => a.start - b.start || b.end - a.end);
    const merged: typeof spans = [];
    for (const sp of spans) {
      const prev = merged[merged.length - 1];
      if (prev && sp.start < prev.end) prev.end = Math.max(prev.end, sp.end);
      else merged.push({ ...sp });
    }
    let out = "";
    let at = 0;
    for (const sp of merged) {
      out += s.slice(at, sp.start) + sp.replacement;
      at = sp.end;
    }
    return out + s.slice(at);
  }

  /** Every string value inside a JSON value masked; keys, numbers and booleans as they were. */
  value(v: unknown): unknown {
    if (typeof v === "string") return this.text(v);
    if (Array.isArray(v)) return v.map((x) => this.value(x));
    if (v && typeof v === "object") {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) out[k] = this.value(x);
      return out;
    }
    return v;
  }

  /** A tool's result, text and structured content alike. */
  result(r: ToolResult): ToolResult {
    const out: ToolResult = { ...r, content: r.content.map((c) => ({ ...c, text: this.block(c.text) })) };
    if (r.structuredContent !== undefined)
      out.structuredContent = this.value(r.structuredContent) as Record<string, unknown>;
    return out;
  }

  /** A text block: compact JSON (what the tools write) masked value by value, anything else as text. */
  private block(text: string): string {
    if (text.startsWith("{") || text.startsWith("[")) {
      try {
        const parsed: unknown = JSON.parse(text);
        if (JSON.stringify(parsed) === text) return JSON.stringify(this.value(parsed));
      } catch {}
    }
    return this.text(text);
  }
}

/** A masking config file (or a policy group) as read. */
interface MaskFile {
  version?: unknown;
  rules?: unknown;
  builtins?: unknown;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * A config file's rules compiled, the operator's first, then the built-ins it keeps. Errors name
 * the file and the rule's id, never a keyword or pattern (they may be the very secrets).
 */
function compile(file: MaskFile, where: string): Masker {
  if (file.version !== undefined && file.version !== 1)
    throw new ConfigError(`${where}: "version" must be 1`);
  if (file.rules !== undefined && !Array.isArray(file.rules))
    throw new ConfigError(`${where}: "rules" must be a list`);
  if (file.builtins !== undefined && !isObject(file.builtins))
    throw new ConfigError(`${where}: "builtins" must be an object`);
  const rules: Rule[] = ((file.rules as unknown[] | undefined) ?? []).map((raw, i) => {
    const r = isObject(raw) ? raw : {};
    const id = typeof r.id === "string" && r.id ? r.id : undefined;
    const name = id ? `rule ${JSON.stringify(id)}` : `rule ${i + 1}`;
    if (!id) throw new ConfigError(`${where}: ${name} needs a non-empty "id"`);
    if (typeof r.replacement !== "string")
      throw new ConfigError(`${where}: ${name} needs a "replacement" string`);
    let expression: RegExp;
    if (r.type === "keyword") {
      if (typeof r.match !== "string" || !r.match)
        throw new ConfigError(`${where}: ${name} (keyword) needs a non-empty "match"`);
      expression = new RegExp(
        r.match.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"),
        r.caseSensitive === false ? "gi" : "g",
      );
    } else if (r.type === "regex") {
      const flags = r.flags ?? "g";
      if (typeof r.pattern !== "string" || !r.pattern)
        throw new ConfigError(`${where}: ${name} (regex) needs a non-empty "pattern"`);
      if (typeof flags !== "string" || !REGEX_FLAGS.test(flags))
        throw new ConfigError(`${where}: ${name}: "flags" may hold only g, i, m, s and u`);
      try {
        expression = new RegExp(r.pattern, flags.includes("g") ? flags : `${flags}g`);
      } catch {
        throw new ConfigError(`${where}: ${name}: "pattern" is not a valid regular expression`);
      }
    } else throw new ConfigError(`${where}: ${name}: "type" must be "keyword" or "regex"`);
    if (expression.test("")) throw new ConfigError(`${where}: ${name} matches the empty string`);
    return { id, replacement: r.replacement, expression };
  });
  const overrides = (file.builtins ?? {}) as Record<string, unknown>;
  for (const [id, o] of Object.entries(overrides)) {
    if (!BUILTIN_IDS.has(id))
      throw new ConfigError(`${where}: builtins.${id} is not a built-in rule (gitlab-token, ipv4, ipv6)`);
    if (!isObject(o)) throw new ConfigError(`${where}: builtins.${id} must be an object`);
    if (o.replacement !== undefined && typeof o.replacement !== "string")
      throw new ConfigError(`${where}: builtins.${id}.replacement must be a string`);
  }
  for (const b of BUILTINS) {
    const o = overrides[b.id] as { enabled?: unknown; replacement?: string } | undefined;
    if (o?.enabled === false) continue;
    rules.push({ ...b, expression: new RegExp(b.expression), replacement: o?.replacement ?? b.replacement });
  }
  return new Masker(rules);
}

/** What a call names, to pick its policy by: the forge it talks to and the projects it names. */
export interface MaskScope {
  apiUrl: string;
  /** The values of the call's `project_id` and `*_project_id` arguments. */
  projects: unknown[];
  /** Whether the tool works on one project (it takes `project_id` and no group was named instead). */
  projectTool: boolean;
}

/** Which masking a call gets: one policy, or a refusal (a managed policy that does not cover it). */
export interface MaskPolicy {
  select(scope: MaskScope): Masker | { refused: string };
  /**
   * Whether the policy binds project ids (GITLAB_MASKING_POLICY_FILE): a project named by path is
   * then resolved to its id before select (src/forge/project-ids.ts) and the call runs by that id.
   */
  bindsIds: boolean;
}

/** The instance part of a forge URL: origin and path without /api/v4, as bindings name it. */
function instanceOf(url: string, where: string): string {
  if (!URL.canParse(url)) throw new ConfigError(`${where}: "${url}" is not a URL`);
  const u = new URL(url);
  return `${u.origin}${u.pathname.replace(/\/+$/, "").replace(/\/api\/v4$/, "")}`;
}

function readJson(path: string, variable: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw new ConfigError(
      `${variable}: cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? "error"}): point it at a readable JSON file`,
    );
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new ConfigError(`${variable}: ${path} is not valid JSON`);
  }
}

export interface MaskingSettings {
  maskingEnabled: boolean;
  maskingConfig: string | undefined;
  maskingPolicyFile: string | undefined;
  maskingWorkspaceDir: string | undefined;
}

/** The file gitlab-mcp reads from the workspace when GITLAB_MASKING_CONFIG is unset. */
export const DEFAULT_MASK_FILE = ".gitlab-mcp-mask.json";

/**
 * The masking of a configuration, its files read and checked (a ConfigError names the variable,
 * the file and what is wrong); undefined when GITLAB_MASKING_ENABLED is off.
 */
export function loadMasking(s: MaskingSettings): MaskPolicy | undefined {
  if (!s.maskingEnabled) return undefined;
  const dir = resolve(s.maskingWorkspaceDir ?? process.cwd());
  let local: Record<string, unknown> | undefined;
  const configPath = resolve(dir, s.maskingConfig ?? DEFAULT_MASK_FILE);
  let exists = true;
  try {
    readFileSync(configPath);
  } catch {
    exists = false;
  }
  if (s.maskingConfig !== undefined || exists) {
    const read = readJson(configPath, "GITLAB_MASKING_CONFIG");
    if (!isObject(read))
      throw new ConfigError(`GITLAB_MASKING_CONFIG: ${configPath} must hold a JSON object`);
    local = read;
  }
  const managedGroup =
    local?.mode === "managed"
      ? typeof local.policyGroup === "string" && local.policyGroup.trim() && local.version === 2
        ? local.policyGroup
        : fail(
            `GITLAB_MASKING_CONFIG: ${configPath}: a managed reference needs "version": 2 and a "policyGroup"`,
          )
      : undefined;
  if (!s.maskingPolicyFile) {
    if (managedGroup !== undefined)
      throw new ConfigError(
        `GITLAB_MASKING_CONFIG names the managed policy group "${managedGroup}": set GITLAB_MASKING_POLICY_FILE to the file that holds it`,
      );
    const one = compile(local ?? {}, `GITLAB_MASKING_CONFIG (${configPath})`);
    return { select: () => one, bindsIds: false };
  }
  return managedPolicy(resolve(dir, s.maskingPolicyFile), managedGroup);
}

const fail = (message: string): never => {
  throw new ConfigError(message);
};

/** GITLAB_MASKING_POLICY_FILE: a policy per project, bound per forge instance. */
function managedPolicy(path: string, localGroup: string | undefined): MaskPolicy {
  const where = `GITLAB_MASKING_POLICY_FILE (${path})`;
  const file = readJson(path, "GITLAB_MASKING_POLICY_FILE");
  if (!isObject(file)) return fail(`${where} must hold a JSON object`);
  if (file.version !== 1) fail(`${where}: "version" must be 1`);
  if (!isObject(file.policyGroups)) fail(`${where}: "policyGroups" must be an object`);
  if (!Array.isArray(file.bindings)) fail(`${where}: "bindings" must be a list`);
  const unbound = file.unboundProjectBehavior ?? "deny";
  if (unbound !== "deny" && unbound !== "builtin")
    fail(`${where}: "unboundProjectBehavior" must be "deny" or "builtin"`);
  const groups = new Map<string, Masker>();
  for (const [name, policy] of Object.entries(file.policyGroups as Record<string, unknown>)) {
    if (!name.trim()) fail(`${where}: a policy group has an empty name`);
    if (!isObject(policy)) fail(`${where}: policy group "${name}" must be an object`);
    groups.set(name, compile(policy as MaskFile, `${where}, group "${name}"`));
  }
  if (localGroup !== undefined && !groups.has(localGroup))
    fail(`GITLAB_MASKING_CONFIG names the policy group "${localGroup}", which ${where} does not define`);
  const bound = new Map<string, string>();
  for (const b of file.bindings as unknown[]) {
    const r = isObject(b) ? b : {};
    if (
      typeof r.gitlabInstance !== "string" ||
      typeof r.policyGroup !== "string" ||
      !Array.isArray(r.projectIds)
    )
      fail(`${where}: every binding needs "gitlabInstance", "policyGroup" and "projectIds"`);
    const group = r.policyGroup as string;
    if (!groups.has(group)) fail(`${where}: a binding names the unknown policy group "${group}"`);
    const instance = instanceOf(r.gitlabInstance as string, where);
    for (const id of r.projectIds as unknown[]) {
      if (!Number.isSafeInteger(id) || (id as number) <= 0)
        fail(`${where}: "projectIds" must hold positive integers`);
      const key = `${instance}#${id}`;
      if (bound.has(key) && bound.get(key) !== group)
        fail(`${where}: project ${id} of ${instance} is bound to two policy groups`);
      bound.set(key, group);
    }
  }
  const builtin = compile({}, where);
  return {
    bindsIds: true,
    select({ apiUrl, projects, projectTool }) {
      if (projects.length === 0) {
        if (projectTool)
          return { refused: "Masking policy: this call names no project; name one (project_id)" };
        return unbound === "builtin"
          ? builtin
          : {
              refused:
                "Masking policy: calls that name no project are not covered by GITLAB_MASKING_POLICY_FILE",
            };
      }
      const named = new Set<string>();
      for (const p of projects) {
        const id =
          typeof p === "number" ? p : typeof p === "string" && /^\d+$/.test(p) ? Number(p) : undefined;
        // the catalogue resolves paths first (bindsIds); one reaching here is refused, never guessed
        if (id === undefined || !Number.isSafeInteger(id) || id <= 0)
          return {
            refused: "Masking policy: name projects by numeric id (GITLAB_MASKING_POLICY_FILE binds ids)",
          };
        const group = bound.get(`${instanceOf(apiUrl, where)}#${id}`);
        if (group === undefined)
          return {
            refused: `Masking policy: project ${id} is bound to no policy group; this server does not serve it`,
          };
        named.add(group);
      }
      if (named.size > 1) return { refused: "Masking policy: one call may not span two policy groups" };
      const [group] = named as Set<string>;
      if (localGroup !== undefined && group !== localGroup)
        return {
          refused: "Masking policy: the project's policy group is not the one GITLAB_MASKING_CONFIG names",
        };
      return groups.get(group!)!;
    },
  };
}
