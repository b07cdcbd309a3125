// `environment_variables` wire forms (spec Agent table): managed Sessions take one
// `KEY=VALUE;KEY2=VALUE2` string; Templates, Forward Sessions and deployments take the map.

import { DeclarationError } from "../../common/errors.js";
import { UnforeseeableError } from "../../unforeseeable.js";
import { MANAGED_ENV_VALUE_FORBIDDEN } from "../wire-decisions.js";

const KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Keys must be shell identifiers. A value containing `;` cannot be expressed in the managed
 * string (the wire has no escape) and is rejected instead of being silently split.
 */
export function envVarsToManagedString(vars: Record<string, string>): string {
  return Object.entries(vars)
    .map(([key, value]) => {
      if (!KEY.test(key))
        throw new DeclarationError(
          "provider_b.environment_variable_name",
          `environment variable name "${key}" is not a valid identifier`,
        );
      if (value.includes(MANAGED_ENV_VALUE_FORBIDDEN)) {
        throw new UnforeseeableError(
          "internal",
          `environment variable ${key}: a ";" in a value reached the managed session form (the session start refuses it first)`,
        );
      }
      return `${key}=${value}`;
    })
    .join(";");
}

/** Parses the managed string back; the first `=` separates key and value. */
export function envVarsFromManagedString(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of text.split(";")) {
    if (part === "") continue;
    const eq = part.indexOf("=");
    if (eq <= 0)
      throw new UnforeseeableError(
        "answer",
        `provider_b answered an environment variable entry without KEY=: "${part}"`,
      );
    out[part.slice(0, eq)] = part.slice(eq + 1);
  }
  return out;
}

export function envVarsMap(vars: Record<string, string> | undefined): Record<string, string> | undefined {
  if (!vars) return undefined;
  for (const key of Object.keys(vars)) {
    if (!KEY.test(key))
      throw new DeclarationError(
        "provider_b.environment_variable_name",
        `environment variable name "${key}" is not a valid identifier`,
      );
  }
  return { ...vars };
}
