import type { z } from "zod";
import { UNKNOWN_KEYS_MARKER } from "../model/schema-helpers.js";
import { didYouMean } from "../model/suggest.js";
import type { Diagnostic } from "./diagnostics.js";
import type { Path, YamlSource } from "./source.js";

type Issue = z.core.$ZodIssue;

const CODED = /^\[(AGENTS\d{4})\] ([\s\S]*)$/;

/** The fix for each schema-level coded finding. */
const SCHEMA_HINTS: Record<string, string> = {
  AGENTS1004: 'write version: "1" (with the quotes)',
  AGENTS1035: "copy the workspace id from the provider console; it looks like llm-xxxxxxxx",
  AGENTS1037:
    "write `checkout: {branch: main}` to follow a branch, or `checkout: {commit: <full SHA>}` to pin one (`git rev-parse <short-sha>` prints the full SHA)",
  AGENTS1121: "use the id of an existing identity (idn_...), or use external_id to let the tool manage one",
  AGENTS1125: "use the id of an existing provider_b BYOC tunnel (tnl_...)",
  AGENTS1205: "keep one spelling; mcp_server_name and default_config are the canonical ones",
  AGENTS1214: "give the store a display name of 1 to 255 characters",
  AGENTS1215: "shorten the description to at most 1024 characters",
  AGENTS1500: "list between 1 and 50 initial events, or leave initial_events out",
  AGENTS1501: "use a whole number from 1 to 20",
};

/** Turn zod issues into positioned diagnostics, one per problem a user has to fix. */
export function issuesToDiagnostics(issues: readonly Issue[], source: YamlSource): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const issue of issues) convert(issue, [], source, out);
  return out;
}

function convert(issue: Issue, base: Path, source: YamlSource, out: Diagnostic[]): void {
  const path = [...base, ...(issue.path as (string | number)[])];
  const where = (p: Path) => ({ ...source.pos(p), path: [...p] });

  if (issue.code === "unrecognized_keys") {
    const decoded = decodeUnknownKeys(issue.message);
    for (const key of issue.keys) {
      const suggestion = decoded?.suggestions[key] ?? null;
      const underProviders = path.length === 1 && path[0] === "providers";
      out.push({
        code: underProviders ? "AGENTS1031" : "AGENTS1002",
        severity: "error",
        message: underProviders
          ? `unknown provider "${key}"${suggestion ? ` (did you mean "${suggestion}"?)` : ""}`
          : `unknown field "${key}"${suggestion ? ` (did you mean "${suggestion}"?)` : ""}`,
        ...source.keyPos([...path, key]),
        path: [...path, key],
        hint: decoded ? `allowed here: ${decoded.known.join(", ")}` : undefined,
      });
    }
    return;
  }

  if (issue.code === "invalid_union" && issue.errors.length > 0) {
    const branch = bestBranch(issue.errors);
    for (const inner of branch) convert(inner, path, source, out);
    return;
  }

  const coded = CODED.exec(issue.message);
  if (coded) {
    const hint = SCHEMA_HINTS[coded[1]!];
    out.push({
      code: coded[1]!,
      severity: "error",
      message: coded[2]!,
      ...where(path),
      ...(hint ? { hint } : {}),
    });
    return;
  }

  // A field merged in (`<<: *defaults`) is present though not written in this mapping.
  if (!source.has(path) && !source.present(path)) {
    const field = path[path.length - 1];
    out.push({
      code: "AGENTS1003",
      severity: "error",
      message: `missing required field "${String(field)}"`,
      ...source.keyPos(path.slice(0, -1)),
      path: [...path],
      hint: `add \`${String(field)}:\` under ${describePath(path.slice(0, -1))}`,
    });
    return;
  }

  out.push({
    code: "AGENTS1001",
    severity: "error",
    message: `${describePath(path)}: ${plainMessage(issue)}${enumSuggestion(issue, path, source)}`,
    ...where(path),
  });
}

/** For a mistyped enum value (`type: clod`), the closest allowed value. */
function enumSuggestion(issue: Issue, path: Path, source: YamlSource): string {
  if (issue.code !== "invalid_value") return "";
  const written = source.written(path);
  if (written === undefined) return "";
  return didYouMean(
    written,
    issue.values.filter((v): v is string => typeof v === "string"),
  );
}

/** For "string or object" unions, report the branch the user evidently meant. */
function bestBranch(branches: readonly (readonly Issue[])[]): readonly Issue[] {
  let best = branches[0] ?? [];
  let bestScore = Number.POSITIVE_INFINITY;
  for (const branch of branches) {
    // A branch that failed only on the root type is the one the user did not mean.
    const rootTypeMiss = branch.some((issue) => issue.path.length === 0 && issue.code === "invalid_type");
    const score = (rootTypeMiss ? 1000 : 0) + branch.length;
    if (score < bestScore) {
      best = branch;
      bestScore = score;
    }
  }
  return best;
}

function plainMessage(issue: Issue): string {
  switch (issue.code) {
    case "invalid_type":
      return `expected ${issue.expected}`;
    case "invalid_value":
      return `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}`;
    case "too_small":
      return issue.origin === "array"
        ? `needs at least ${issue.minimum} entr${Number(issue.minimum) === 1 ? "y" : "ies"}`
        : issue.origin === "string"
          ? `must not be empty`
          : `must be at least ${issue.minimum}`;
    case "too_big":
      return issue.origin === "array"
        ? `allows at most ${issue.maximum} entries`
        : `must be at most ${issue.maximum}`;
    case "invalid_format":
      return issue.format === "url" ? "must be a URL" : `must be a valid ${issue.format}`;
    default:
      return issue.message.replace(/^Invalid input: /, "");
  }
}

function describePath(path: Path): string {
  if (path.length === 0) return "the top level";
  return path
    .map((segment) => (typeof segment === "number" ? `[${segment}]` : segment))
    .join(".")
    .replace(/\.\[/g, "[");
}

function decodeUnknownKeys(
  message: string,
): { suggestions: Record<string, string | null>; known: string[] } | undefined {
  if (!message.startsWith(UNKNOWN_KEYS_MARKER)) return undefined;
  return JSON.parse(message.slice(UNKNOWN_KEYS_MARKER.length));
}
