import type { ProviderCapabilities } from "../../model/capabilities.js";
import type { Kind } from "../../model/kinds.js";
import { capabilitiesOf } from "../../model/provider-catalog.js";
import { targetsOf } from "../../model/targets.js";
import type { Diagnostic, DiagnosticCode } from "../diagnostics.js";
import type { Config } from "../schema/index.js";
import type { Path, YamlSource } from "../source.js";

/** What every rule gets: the typed config, positions, and the target providers of a resource. */
export class RuleContext {
  readonly diagnostics: Diagnostic[] = [];

  constructor(
    readonly config: Config,
    readonly source: YamlSource,
    /** `--provider`: check only this provider's view of the file. */
    readonly only?: string,
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

  declarations<T>(kind: Kind): [string, T][] {
    return Object.entries((this.config[kind] ?? {}) as Record<string, T>);
  }

  /** Target providers of one declaration, restricted by `--provider`, with their capabilities. */
  targets(spec: { provider?: string }, kind?: Kind): { provider: string; caps: ProviderCapabilities }[] {
    return targetsOf(spec.provider, this.config, kind)
      .filter((provider) => this.only === undefined || provider === this.only)
      .flatMap((provider) => {
        const caps = capabilitiesOf(provider);
        return caps ? [{ provider, caps }] : [];
      });
  }

  /** Whether `name` of `kind` is declared for `provider`. */
  declaredOn(kind: Kind, name: string, provider: string): boolean {
    const spec = (this.config[kind] as Record<string, { provider?: string }> | undefined)?.[name];
    return spec !== undefined && targetsOf(spec.provider, this.config, kind).includes(provider);
  }
}
