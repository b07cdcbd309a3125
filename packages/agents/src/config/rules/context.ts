import type { ProviderCapabilities } from "../../model/capabilities.js";
import type { Kind } from "../../model/kinds.js";
import { capabilitiesOf } from "../../providers/specs.js";
import type { Diagnostic, DiagnosticCode } from "../diagnostics.js";
import type { Config } from "../schema/index.js";
import type { Path, YamlSource } from "../source.js";
import { targetsOf } from "../targets.js";

/** What every rule gets: the typed config, positions, and the target providers of a resource. */
export class RuleContext {
  readonly diagnostics: Diagnostic[] = [];

  constructor(
    readonly config: Config,
    readonly source: YamlSource,
    /** `--provider`: check only this provider's view of the file. */
    readonly only?: string,
    /**
     * Declarations that failed the schema (`kind\u0000name`). They were left out of `config` so the
     * rules can still check the rest; references to them are not "undeclared".
     */
    readonly invalid: ReadonlySet<string> = new Set(),
  ) {}

  report(
    code: DiagnosticCode,
    message: string,
    path: Path,
    hint?: string,
    severity: "error" | "warning" = "error",
  ) {
    const diagnostic: Diagnostic = { code, severity, message, ...this.source.pos(path), path: [...path] };
    if (hint !== undefined) diagnostic.hint = hint;
    this.diagnostics.push(diagnostic);
  }

  warn(code: DiagnosticCode, message: string, path: Path, hint?: string) {
    this.report(code, message, path, hint, "warning");
  }

  /** Report at the key of a mapping entry (a resource name, a field name). */
  reportAtKey(code: DiagnosticCode, message: string, path: Path, hint?: string) {
    const diagnostic: Diagnostic = {
      code,
      severity: "error",
      message,
      ...this.source.keyPos(path),
      path: [...path],
    };
    if (hint !== undefined) diagnostic.hint = hint;
    this.diagnostics.push(diagnostic);
  }

  /** The declarations of a kind, as [name, declaration] pairs: listed once per kind, for every rule. */
  declarations<T>(kind: Kind): readonly (readonly [string, T])[] {
    let entries = this.declarationCache.get(kind);
    if (!entries) {
      entries = Object.entries(this.config[kind] ?? {});
      this.declarationCache.set(kind, entries);
    }
    return entries as readonly (readonly [string, T])[];
  }

  private readonly declarationCache = new Map<Kind, readonly (readonly [string, unknown])[]>();

  /** Target providers of one declaration, restricted by `--provider`, with their capabilities. */
  targets(spec: { provider?: string }, kind?: Kind): { provider: string; caps: ProviderCapabilities }[] {
    const cache = kind === "tunnels" ? this.tunnelTargets : this.targetCache;
    const key = spec.provider ?? "";
    let targets = cache.get(key);
    if (!targets) {
      targets = targetsOf(spec.provider, this.config, kind)
        .filter((provider) => this.only === undefined || provider === this.only)
        .flatMap((provider) => {
          const caps = capabilitiesOf(provider);
          return caps ? [{ provider, caps }] : [];
        });
      cache.set(key, targets);
    }
    return targets;
  }

  /**
   * Targets depend only on the pin (and on tunnels having none), so they are computed once each:
   * by pin, one map for tunnels and one for every other kind.
   */
  private readonly targetCache = new Map<string, { provider: string; caps: ProviderCapabilities }[]>();
  private readonly tunnelTargets = new Map<string, { provider: string; caps: ProviderCapabilities }[]>();

  /** Whether `name` of `kind` is declared for `provider`. */
  declaredOn(kind: Kind, name: string, provider: string): boolean {
    const declarations = this.config[kind] as Record<string, { provider?: string }> | undefined;
    if (!declarations || !Object.hasOwn(declarations, name)) return false;
    const spec = declarations[name]!;
    return targetsOf(spec.provider, this.config, kind).includes(provider);
  }
}
