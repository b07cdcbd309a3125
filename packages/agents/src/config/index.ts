import { dirname, resolve } from "node:path";
import { KINDS } from "../model/kinds.js";
import { redactor } from "../model/redact.js";
import { compareDiagnostics, type Diagnostic } from "./diagnostics.js";
import { loadDotenv } from "./dotenv.js";
import { expand, type ResourceGraph } from "./graph.js";
import { interpolate } from "./interpolate.js";
import { issuesToDiagnostics } from "./issues.js";
import { resolvePaths } from "./paths.js";
import { runRules } from "./rules/index.js";
import { type Config, configSchema, RESOURCE_SCHEMAS } from "./schema/index.js";
import { parseConfig } from "./schema/plain.js";
import { YamlSource } from "./source.js";
import { readTextFile } from "./utf8.js";

export type { Diagnostic, SourcePos } from "./diagnostics.js";
export { DIAGNOSTIC_CODES } from "./diagnostics.js";
export type { Config } from "./schema/index.js";

export interface LoadOptions {
  /** Variables that win over `.env`; defaults to `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Restrict validation and the graph to one provider. */
  provider?: string;
  /**
   * Expand the resource graph (`graph` in the result); default true. `agents validate` reports
   * diagnostics only and passes false: the graph holds a node per declaration and provider.
   */
  graph?: boolean;
}

export interface LoadResult {
  file: string;
  dir: string;
  /** Present when there is no error: the typed config, secrets and local paths resolved. */
  config?: Config;
  diagnostics: Diagnostic[];
  /** Every value substituted for a `${VAR}`, for redaction by anything that prints. */
  secretValues: string[];
  graph?: ResourceGraph;
  /** The parsed source, for excerpts in compiler-style output. */
  source?: YamlSource;
  /** The document after `${VAR}` substitution, once the file could be read (valid or not). */
  document?: Record<string, unknown>;
}

/** Load, interpolate, validate and expand an agents.yaml file. Never throws on bad input. */
export async function loadConfig(file: string, opts: LoadOptions = {}): Promise<LoadResult> {
  const absolute = resolve(file);
  const dir = dirname(absolute);
  const decoded = readTextFile(
    absolute,
    file,
    "run `agents init` to create a starter agents.yaml, or pass -f FILE",
  );
  if ("diagnostic" in decoded)
    return { file: absolute, dir, secretValues: [], diagnostics: [decoded.diagnostic] };
  return loadConfigText(decoded.text, absolute, opts);
}

/** As `loadConfig`, for text already in memory; `file` names it and anchors relative paths. */
export function loadConfigText(text: string, file: string, opts: LoadOptions = {}): LoadResult {
  const absolute = resolve(file);
  const dir = dirname(absolute);
  const source = new YamlSource(absolute, text);
  const base = { file: absolute, dir, source };
  const syntax = source.syntaxDiagnostics();
  if (syntax.length > 0) return { ...base, diagnostics: syntax, secretValues: [] };
  if (source.expansionError !== undefined) {
    // An alias "billion laughs" expansion is refused by the yaml library, not by us.
    return {
      ...base,
      secretValues: [],
      diagnostics: [
        {
          code: "AGENTS1000",
          severity: "error",
          message: `YAML cannot be expanded: ${source.expansionError}`,
          ...(source.expansionAt === undefined ? source.pos([]) : source.posAt(source.expansionAt)),
          hint: "reduce the number of aliases (*name) that expand other aliases",
        },
      ],
    };
  }
  if (!isPlainMapping(source.data)) {
    return {
      ...base,
      secretValues: [],
      diagnostics: [
        {
          code: "AGENTS1005",
          severity: "error",
          message: "the file must be a mapping with `version` and `providers` at the top level",
          ...source.pos([]),
          hint: 'start with:\nversion: "1"\nproviders:\n  provider_c:\n    api_key: ${PROVIDER_C_API_KEY}',
        },
      ],
    };
  }

  const env = opts.env ?? process.env;
  const dotenv = loadDotenv(dir);
  const lookup = (name: string) => env[name] ?? dotenv.values[name];
  const {
    value: substituted,
    diagnostics: interpolationDiagnostics,
    secretValues,
  } = interpolate(source, lookup, dotenv.searched);
  const redact = redactor(secretValues);
  const finish = (diagnostics: Diagnostic[], extra: Partial<LoadResult> = {}): LoadResult => ({
    ...base,
    ...extra,
    document: substituted as Record<string, unknown>,
    secretValues,
    diagnostics: dedupe(diagnostics)
      .map((d) => ({
        ...d,
        message: redact(d.message),
        hint: d.hint && redact(d.hint),
      }))
      .map((d) => (d.hint === undefined ? withoutHint(d) : d))
      .sort(compareDiagnostics),
  });

  // A value whose variable could not be resolved still holds "${NAME}"; findings about that
  // value would only repeat the unset-variable error, so they are dropped.
  const unresolved = new Set(interpolationDiagnostics.map((d) => `${d.line}:${d.col}`));
  const notAtUnresolved = (list: Diagnostic[]) => list.filter((d) => !unresolved.has(`${d.line}:${d.col}`));

  const raw = withoutExtensions(substituted);
  const parsed = parseConfig(raw);
  if (!parsed.success) {
    const schemaDiagnostics = issuesToDiagnostics(parsed.error.issues, source);
    // Check what is valid anyway, so one pass shows every problem, not only the schema's.
    const partial = validPart(raw);
    const more = partial
      ? [
          ...resolvePaths(partial.config, dir, source),
          ...runRules(partial.config, source, opts.provider, partial.invalid),
        ]
      : [];
    return finish([
      ...dotenv.diagnostics,
      ...interpolationDiagnostics,
      ...notAtUnresolved([...schemaDiagnostics, ...more]),
    ]);
  }
  const config = parsed.data;
  const checks = [...resolvePaths(config, dir, source), ...runRules(config, source, opts.provider)];
  const diagnostics = [...dotenv.diagnostics, ...interpolationDiagnostics, ...notAtUnresolved(checks)];
  const hasError = diagnostics.some((d) => d.severity === "error");
  if (opts.graph === false) return finish(diagnostics, hasError ? {} : { config });
  const graph = expand(config, { pos: (path) => source.keyPos(path), provider: opts.provider });
  return finish(diagnostics, hasError ? { graph } : { config, graph });
}

function withoutHint(d: Diagnostic): Diagnostic {
  const { hint: _hint, ...rest } = d;
  return rest;
}

/** Per-provider checks can repeat one finding at one place; show it once. */
function dedupe(diagnostics: Diagnostic[]): Diagnostic[] {
  const seen = new Set<string>();
  return diagnostics.filter((d) => {
    const key = `${d.code}\u0000${d.line}:${d.col}\u0000${d.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function isPlainMapping(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** Top-level `x-*` keys are extension fields (a home for YAML anchors) and are not validated. */
function withoutExtensions(value: unknown): unknown {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value).filter(([key]) => !key.startsWith("x-")));
}

/**
 * The file without the declarations that fail the schema, when the rest (version, providers,
 * defaults) is valid; `invalid` names the declarations left out.
 */
function validPart(raw: unknown): { config: Config; invalid: Set<string> } | undefined {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) return undefined;
  const invalid = new Set<string>();
  const trimmed: Record<string, unknown> = { ...(raw as Record<string, unknown>) };
  for (const kind of KINDS) {
    const declarations = trimmed[kind];
    if (declarations === null || typeof declarations !== "object" || Array.isArray(declarations)) continue;
    const kept: Record<string, unknown> = {};
    for (const [name, declaration] of Object.entries(declarations)) {
      if (RESOURCE_SCHEMAS[kind].safeParse(declaration).success) kept[name] = declaration;
      else invalid.add(`${kind}\u0000${name}`);
    }
    trimmed[kind] = kept;
  }
  const reparsed = configSchema.safeParse(trimmed);
  return reparsed.success ? { config: reparsed.data, invalid } : undefined;
}
