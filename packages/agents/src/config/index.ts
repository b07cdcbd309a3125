import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { isMap } from "yaml";
import { expand, type ResourceGraph } from "../model/graph.js";
import { compareDiagnostics, type Diagnostic, redact } from "./diagnostics.js";
import { loadDotenv } from "./dotenv.js";
import { interpolate } from "./interpolate.js";
import { issuesToDiagnostics } from "./issues.js";
import { resolvePaths } from "./paths.js";
import { runRules } from "./rules/index.js";
import { type Config, configSchema } from "./schema/index.js";
import { YamlSource } from "./source.js";

export type { Diagnostic, SourcePos } from "./diagnostics.js";
export { DIAGNOSTIC_CODES } from "./diagnostics.js";
export type { Config } from "./schema/index.js";

export interface LoadOptions {
  /** Variables that win over `.env`; defaults to `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Restrict validation and the graph to one provider. */
  provider?: string;
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
}

/** Load, interpolate, validate and expand an agents.yaml file. Never throws on bad input. */
export async function loadConfig(file: string, opts: LoadOptions = {}): Promise<LoadResult> {
  const absolute = resolve(file);
  const dir = dirname(absolute);
  let text: string;
  try {
    text = readFileSync(absolute, "utf8");
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === "ENOENT" ? "file not found" : "cannot be read";
    return {
      file: absolute,
      dir,
      secretValues: [],
      diagnostics: [
        {
          code: "AGENTS1006",
          severity: "error",
          message: `${file}: ${reason}`,
          file: absolute,
          line: 1,
          col: 1,
          hint: "run `agents init` to create a starter agents.yaml, or pass -f FILE",
        },
      ],
    };
  }
  return loadConfigText(text, absolute, opts);
}

/** As `loadConfig`, for text already in memory; `file` names it and anchors relative paths. */
export function loadConfigText(text: string, file: string, opts: LoadOptions = {}): LoadResult {
  const absolute = resolve(file);
  const dir = dirname(absolute);
  const source = new YamlSource(absolute, text);
  const base = { file: absolute, dir, source };
  const syntax = source.syntaxDiagnostics();
  if (syntax.length > 0) return { ...base, diagnostics: syntax, secretValues: [] };
  if (!isMap(source.doc.contents)) {
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
  const { diagnostics: interpolationDiagnostics, secretValues } = interpolate(
    source,
    lookup,
    dotenv.searched,
  );
  const finish = (diagnostics: Diagnostic[], extra: Partial<LoadResult> = {}): LoadResult => ({
    ...base,
    ...extra,
    secretValues,
    diagnostics: dedupe(diagnostics)
      .map((d) => ({
        ...d,
        message: redact(d.message, secretValues),
        hint: d.hint && redact(d.hint, secretValues),
      }))
      .map((d) => (d.hint === undefined ? withoutHint(d) : d))
      .sort(compareDiagnostics),
  });

  const parsed = configSchema.safeParse(source.doc.toJS({ maxAliasCount: 1000 }));
  if (!parsed.success) {
    return finish([...interpolationDiagnostics, ...issuesToDiagnostics(parsed.error.issues, source)]);
  }
  const config = parsed.data;
  const diagnostics = [...interpolationDiagnostics, ...resolvePaths(config, dir, source)];
  diagnostics.push(...runRules(config, source, opts.provider));
  const graph = expand(config, { pos: (path) => source.keyPos(path), provider: opts.provider });
  const hasError = diagnostics.some((d) => d.severity === "error");
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
