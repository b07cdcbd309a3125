// The schema check of the plainest environments and agents without zod: a declaration of text
// fields only (an environment's `config` holding only `type` and `setup_script`) is checked by
// hand and copied as zod copies it (a new object, keys in the schema's order). Anything else in a
// kind, or any field outside that short list, leaves the whole kind to zod; and when the rest of
// the file fails zod, the whole file is parsed by zod again, so every diagnostic is zod's own.
// zod's first pass over thousands of declarations is the largest part of `agents validate` on a
// generated file (its per-object parser is code generated at run time, which V8's code cache
// cannot keep); this takes it off the common case. test/config/schema/plain.test.ts holds this
// check and zod equal on declarations of every field, value and key order it takes and declines.
import type { z } from "zod";
import { agentSchema } from "./agent.js";
import { type Config, configSchema } from "./index.js";
import { environmentSchema } from "./resources.js";

type Plain = Record<string, unknown>;

const isMapping = (value: unknown): value is Plain =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** A field this check takes: what zod's schema for it requires of a string. */
type Text = "text" | "nonEmpty";

/** The fields taken, each with its rule; the output follows the schema's own key order. */
function fields(shape: Record<string, unknown>, taken: Record<string, Text>): [string, Text][] {
  return Object.keys(shape)
    .filter((key) => Object.hasOwn(taken, key))
    .map((key) => [key, taken[key]!]);
}

const ENVIRONMENT_FIELDS = fields(environmentSchema.shape, {
  name: "text",
  description: "text",
  provider: "text",
  environment_id: "nonEmpty",
});
const ENVIRONMENT_CONFIG_TYPES = new Set(["cloud", "self_hosted"]);

const AGENT_FIELDS = fields(agentSchema.shape, {
  description: "text",
  model: "nonEmpty",
  instructions: "nonEmpty",
  environment: "text",
  tunnel: "text",
  provider: "text",
  vault: "text",
});
const AGENT_REQUIRED = ["model", "instructions"];

const DECLINE = undefined;

/** Copy of the text fields of `spec` in `order`, or undefined when one is missing its rule. */
function copyText(spec: Plain, order: readonly [string, Text][], out: Plain): Plain | undefined {
  for (const [key, rule] of order) {
    if (!Object.hasOwn(spec, key)) continue;
    const value = spec[key];
    if (typeof value !== "string" || (rule === "nonEmpty" && value.length === 0)) return DECLINE;
    out[key] = value;
  }
  return out;
}

/** Whether every key of `spec` is one of `allowed`. */
function onlyKeys(spec: Plain, allowed: (key: string) => boolean): boolean {
  for (const key in spec) if (!allowed(key)) return false;
  return true;
}

const ENVIRONMENT_KEYS = new Set([...ENVIRONMENT_FIELDS.map(([key]) => key), "config"]);
const AGENT_KEYS = new Set(AGENT_FIELDS.map(([key]) => key));

function environment(spec: unknown): Plain | undefined {
  if (!isMapping(spec) || !onlyKeys(spec, (key) => ENVIRONMENT_KEYS.has(key))) return DECLINE;
  const config = spec.config;
  if (!isMapping(config) || !onlyKeys(config, (key) => key === "type" || key === "setup_script"))
    return DECLINE;
  const type = config.type;
  if (typeof type !== "string" || !ENVIRONMENT_CONFIG_TYPES.has(type)) return DECLINE;
  const setup = config.setup_script;
  if (Object.hasOwn(config, "setup_script") && typeof setup !== "string") return DECLINE;
  const out = copyText(spec, ENVIRONMENT_FIELDS, {});
  if (out === undefined) return DECLINE;
  // `config` comes after the four text fields in the schema's order (the test checks it).
  out.config = Object.hasOwn(config, "setup_script") ? { type, setup_script: setup } : { type };
  return out;
}

function agent(spec: unknown): Plain | undefined {
  if (!isMapping(spec) || !onlyKeys(spec, (key) => AGENT_KEYS.has(key))) return DECLINE;
  for (const key of AGENT_REQUIRED) if (!Object.hasOwn(spec, key)) return DECLINE;
  return copyText(spec, AGENT_FIELDS, {});
}

const PLAIN_KINDS = { environments: environment, agents: agent } as const;

/** zod's output for a whole map of one kind, or undefined when one declaration is not plain. */
export function plainDeclarations(kind: keyof typeof PLAIN_KINDS, declarations: unknown): Plain | undefined {
  if (!isMapping(declarations)) return DECLINE;
  const check = PLAIN_KINDS[kind];
  const out: Plain = {};
  for (const name of Object.keys(declarations)) {
    // zod's record skips `__proto__` and refuses an empty name: left to it.
    if (name.length === 0 || name === "__proto__") return DECLINE;
    const parsed = check(declarations[name]);
    if (parsed === undefined) return DECLINE;
    out[name] = parsed;
  }
  return out;
}

/**
 * `configSchema.safeParse(raw)`, with the plain environments and agents checked by hand: the same
 * result whenever it succeeds, and zod's own whenever anything fails.
 */
export function parseConfig(raw: unknown): z.ZodSafeParseResult<Config> {
  if (isMapping(raw)) {
    let rest: Plain | undefined;
    const plain: Plain = {};
    for (const kind of Object.keys(PLAIN_KINDS) as (keyof typeof PLAIN_KINDS)[]) {
      if (!Object.hasOwn(raw, kind)) continue;
      const declarations = plainDeclarations(kind, raw[kind]);
      if (declarations === undefined) continue;
      rest ??= { ...raw };
      rest[kind] = {};
      plain[kind] = declarations;
    }
    if (rest !== undefined) {
      const parsed = configSchema.safeParse(rest);
      if (parsed.success) {
        const data = parsed.data as Plain;
        for (const kind of Object.keys(plain)) data[kind] = plain[kind];
        return parsed;
      }
    }
  }
  return configSchema.safeParse(raw);
}
