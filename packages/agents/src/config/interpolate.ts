import { isMap, isPair, isScalar, isSeq, type Scalar } from "yaml";
import type { Diagnostic } from "./diagnostics.js";
import type { YamlSource } from "./source.js";

/** `${NAME}` references; `$${` is an escape that yields a literal `${`. */
const REFERENCE = /\$\$\{|\$\{([^}]*)\}/g;
const VALID_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

interface InterpolationResult {
  diagnostics: Diagnostic[];
  /** Every value substituted into the document, so output can redact it. */
  secretValues: string[];
}

/**
 * Substitute `${VAR}` in every string scalar value of the parsed document, in place. This runs on
 * the YAML tree, never on raw text: a value containing `#`, a newline or quotes stays one value,
 * and a `${VAR}` inside a comment is never looked at. Mapping keys are not interpolated.
 */
export function interpolate(
  source: YamlSource,
  lookup: (name: string) => string | undefined,
  searched: readonly string[],
): InterpolationResult {
  const diagnostics: Diagnostic[] = [];
  const secretValues = new Set<string>();
  forEachValueScalar(source.doc.contents, (node) => {
    if (typeof node.value !== "string" || !node.value.includes("$")) return;
    const original = node.value;
    const at = source.posAt(node.range?.[0] ?? 0);
    let failed = false;
    const replaced = original.replace(REFERENCE, (match, name: string | undefined) => {
      if (match === "$${") return "${";
      if (name === undefined || !VALID_NAME.test(name)) {
        failed = true;
        diagnostics.push({
          code: "AGENTS1011",
          severity: "error",
          message: `malformed variable reference "${match}"`,
          ...at,
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
          ...at,
          hint: `set ${name} in the environment or in a .env file (looked in: ${searched
            .map((dir) => `${dir}/.env`)
            .join(", ")})`,
        });
        return match;
      }
      if (value.length > 0) secretValues.add(value);
      return value;
    });
    if (!failed && replaced !== original) node.value = replaced;
  });
  return { diagnostics, secretValues: [...secretValues] };
}

/**
 * Every scalar in value position (mapping keys are skipped). A plain recursive walk: yaml's
 * `visit` allocates a frozen ancestor path per node, which dominated large files.
 */
function forEachValueScalar(node: unknown, callback: (scalar: Scalar) => void): void {
  if (isScalar(node)) callback(node);
  else if (isMap(node)) {
    for (const pair of node.items) if (isPair(pair)) forEachValueScalar(pair.value, callback);
  } else if (isSeq(node)) {
    for (const item of node.items) forEachValueScalar(item, callback);
  }
}
