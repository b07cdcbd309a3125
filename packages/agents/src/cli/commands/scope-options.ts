import { type LoadedProject, PROVIDER_NAMES } from "../../index.js";
import { CliError } from "../errors.js";

export interface ScopeOptions {
  provider: string[];
  target: string[];
}

export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** Validates --provider / --target against the config so a typo fails instead of planning nothing. */
export function scopeOf(
  options: ScopeOptions,
  project: LoadedProject,
): { providers?: string[]; targets?: string[] } {
  for (const p of options.provider) {
    if (!(PROVIDER_NAMES as readonly string[]).includes(p)) {
      throw new CliError(`--provider ${p}: unknown provider; expected one of ${PROVIDER_NAMES.join(", ")}`);
    }
  }
  for (const t of options.target) {
    if (!project.desired.some((r) => r.address === t) && !/^[a-z_]+\.[a-z_]+\["/.test(t)) {
      const named = project.desired.find((r) => r.address.endsWith(`["${t}"]`));
      throw new CliError(
        `--target ${t}: not a resource address; expected <provider>.<kind>["<name>"]` +
          (named ? ` (did you mean ${named.address}?)` : ""),
      );
    }
  }
  return {
    ...(options.provider.length ? { providers: options.provider } : {}),
    ...(options.target.length ? { targets: options.target } : {}),
  };
}
