import { type LoadedProject, PROVIDER_NAMES } from "../../index.js";
import { CliError } from "../errors.js";

export interface ScopeOptions {
  provider: string[];
  target: string[];
  /** `--replace ADDRESS` (plan and apply only). */
  replace?: string[];
}

export const REPLACE_HELP =
  "replace this resource although nothing forces it: create it anew and delete the old one (repeatable)";

export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** Validates --provider / --target against the config so a typo fails instead of planning nothing. */
export function scopeOf(
  options: ScopeOptions,
  project: LoadedProject,
): { providers?: string[]; targets?: string[]; replace?: string[] } {
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
  // Which address --replace may name is the planner's to say (declared and recorded); a word that
  // is not an address at all is caught here, with the address it probably meant.
  for (const r of options.replace ?? []) {
    if (!/^[a-z_]+\.[a-z_]+\["/.test(r)) {
      const named = project.desired.find((d) => d.address.endsWith(`["${r}"]`));
      throw new CliError(
        `--replace ${r}: not a resource address; expected <provider>.<kind>["<name>"] as plans print it` +
          (named ? ` (did you mean ${named.address}?)` : ""),
      );
    }
  }
  return {
    ...(options.provider.length ? { providers: options.provider } : {}),
    ...(options.target.length ? { targets: options.target } : {}),
    ...(options.replace?.length ? { replace: options.replace } : {}),
  };
}
