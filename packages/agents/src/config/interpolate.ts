import type { Diagnostic } from "./diagnostics.js";
import type { Path, YamlSource } from "./source.js";

/**
 * `${NAME}` references; `$${` is an escape that yields a literal `${`. A `${` never closed by a
 * `}` is matched too (the last alternative), so it is refused as malformed, never sent as written.
 */
const REFERENCE = /\$\$\{|\$\{([^}]*)\}|\$\{[^}]*$/g;
const VALID_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Fields holding the id of an object, not a secret: what is substituted there is shown. */
const ID_FIELD = /_id$/;

interface InterpolationResult {
  /** The document with every reference substituted (the source's own data is left as written). */
  value: unknown;
  diagnostics: Diagnostic[];
  /** Every value substituted into the document but into id fields only, so output can redact it. */
  secretValues: string[];
}

/**
 * Substitute `${VAR}` in every string value of the parsed document. This runs on the parsed data,
 * never on raw text: a value containing `#`, a newline or quotes stays one value, and a `${VAR}`
 * inside a comment is never looked at. Mapping keys are not interpolated. Only the mappings and
 * sequences on the way to a substituted value are copied; one shared through an alias is
 * substituted once.
 */
export function interpolate(
  source: YamlSource,
  lookup: (name: string) => string | undefined,
  searched: readonly string[],
): InterpolationResult {
  const diagnostics: Diagnostic[] = [];
  const secretValues = new Set<string>();
  const done = new Map<object, unknown>();

  const substitute = (original: string, at: Path): string => {
    let failed = false;
    // A value substituted into an id field (`agent_id`, `environment_id`...) names an object: it is
    // shown in plans and state, not redacted as a secret (unless it is also used as one).
    const last = at[at.length - 1];
    const idField = typeof last === "string" && ID_FIELD.test(last);
    // Where each reference is written, found only for a diagnostic, each after the one before.
    let from = 0;
    const where = (match: string) => {
      const offset = source.offsetIn(at, match, from);
      from = offset + match.length;
      return source.posAt(offset);
    };
    const replaced = original.replace(REFERENCE, (match, name: string | undefined) => {
      if (match === "$${") return "${";
      if (name === undefined || !VALID_NAME.test(name)) {
        failed = true;
        diagnostics.push({
          code: "AGENTS1011",
          severity: "error",
          message: `malformed variable reference "${match}"`,
          ...where(match),
          hint: "write ${NAME} with NAME made of letters, digits and _; write $${ for a literal ${",
        });
        return match;
      }
      const value = lookup(name);
      if (value === undefined) {
        failed = true;
        diagnostics.push({
          code: "AGENTS1010",
          severity: "error",
          message: `variable ${name} is not set`,
          ...where(match),
          hint: `set ${name} in the environment or in a .env file (looked in: ${searched
            .map((dir) => `${dir}/.env`)
            .join(", ")})`,
        });
        return match;
      }
      if (value.length > 0 && !idField) secretValues.add(value);
      return value;
    });
    return failed ? original : replaced;
  };

  // One path for the whole walk: pushed and popped, copied only when a diagnostic needs it.
  const path: (string | number)[] = [];
  const walk = (value: unknown): unknown => {
    if (typeof value === "string") return value.includes("$") ? substitute(value, [...path]) : value;
    if (value === null || typeof value !== "object") return value;
    const seen = done.get(value);
    if (seen !== undefined) return seen;
    let copy: Record<string | number, unknown> | unknown[] | undefined;
    const visit = (key: string | number, item: unknown) => {
      // A top-level entry whose text holds no `$` (line-yaml.ts) has nothing to substitute.
      if (path.length === 0 && value === source.data && source.withoutReferences.has(key as string)) return;
      path.push(key);
      const next = walk(item);
      path.pop();
      if (next === item) return;
      copy ??= Array.isArray(value) ? [...value] : { ...value };
      // A data property of the copy, `__proto__` included (the spread defined it as one).
      Object.defineProperty(copy, key, { value: next, writable: true, enumerable: true, configurable: true });
    };
    if (Array.isArray(value)) for (let i = 0; i < value.length; i++) visit(i, value[i]);
    else for (const key of Object.keys(value)) visit(key, (value as Record<string, unknown>)[key]);
    const result = copy ?? value;
    done.set(value, result);
    return result;
  };

  const value = walk(source.data);
  return { value, diagnostics, secretValues: [...secretValues] };
}
