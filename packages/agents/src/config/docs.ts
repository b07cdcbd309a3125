import { KINDS } from "../model/kinds.js";
import { PROVIDER_NAMES, PROVIDER_SPECS } from "../providers/specs.js";
import { DIAGNOSTIC_CODES } from "./diagnostics.js";
import { BLOCKS_INTRO, BLOCKS_TITLE } from "./docs-blocks.js";
import { LIFECYCLE_SECTION } from "./docs-lifecycle.js";
import { jsonSchema, SCHEMA_ID } from "./json-schema.js";

type Json = Record<string, any>;

interface Row {
  field: string;
  type: string;
  required: boolean;
  description: string;
}

const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\n/g, " ");

function typeOf(s: Json): string {
  if (s.const !== undefined) return `\`${JSON.stringify(s.const)}\``;
  if (Array.isArray(s.enum)) return s.enum.map((v: unknown) => `\`${JSON.stringify(v)}\``).join(" or ");
  const options = s.anyOf ?? s.oneOf;
  if (Array.isArray(options)) {
    const discriminants = options
      .map((o: Json) => o.properties?.type?.const)
      .filter((v: unknown) => v !== undefined);
    if (discriminants.length === options.length && discriminants.length > 1) {
      return `object, by \`type\`: ${discriminants.map((d: unknown) => `\`${String(d)}\``).join(", ")}`;
    }
    return [...new Set(options.map(typeOf))].join(" or ");
  }
  if (Array.isArray(s.type)) return s.type.join(" or ");
  switch (s.type) {
    case "array":
      return `list of ${s.items ? typeOf(s.items) : "values"}`;
    case "object":
      if (s.properties) return "object";
      if (s.additionalProperties && typeof s.additionalProperties === "object") {
        return `map of name to ${typeOf(s.additionalProperties)}`;
      }
      return "map";
    case "integer":
      return "integer";
    case undefined:
      return "any";
    default:
      return String(s.type);
  }
}

function constraints(s: Json): string {
  const parts: string[] = [];
  if (s.pattern) parts.push(`pattern \`${s.pattern}\``);
  if (s.minLength !== undefined && s.minLength > 1) parts.push(`at least ${s.minLength} characters`);
  if (s.maxLength !== undefined) parts.push(`at most ${s.maxLength} characters`);
  if (s.minimum !== undefined && s.minimum > Number.MIN_SAFE_INTEGER) parts.push(`minimum ${s.minimum}`);
  if (s.maximum !== undefined && s.maximum < Number.MAX_SAFE_INTEGER) parts.push(`maximum ${s.maximum}`);
  if (s.minItems !== undefined) parts.push(`at least ${s.minItems} entries`);
  if (s.maxItems !== undefined) parts.push(`at most ${s.maxItems} entries`);
  return parts.length > 0 ? ` (${parts.join(", ")})` : "";
}

function collect(s: Json, prefix: string, rows: Row[]): void {
  const required = new Set<string>(s.required ?? []);
  for (const [key, child] of Object.entries<Json>(s.properties ?? {})) {
    const field = `${prefix}${key}`;
    rows.push({
      field,
      type: typeOf(child),
      required: required.has(key),
      description: `${child.description ?? ""}${constraints(child)}`.trim(),
    });
    descend(child, field, rows);
  }
}

function descend(s: Json, field: string, rows: Row[]): void {
  if (s.type === "object" && s.properties) collect(s, `${field}.`, rows);
  const item = s.type === "array" ? s.items : undefined;
  if (item?.type === "object" && item.properties) collect(item, `${field}[].`, rows);
  const options: Json[] | undefined = (item ?? s).anyOf ?? (item ?? s).oneOf;
  const suffix = item ? "[]" : "";
  for (const option of options ?? []) {
    if (option.type !== "object" || !option.properties) continue;
    const tag = option.properties.type?.const;
    collect(
      option,
      tag !== undefined ? `${field}${suffix} (type ${tag}).` : `${field}${suffix} (object).`,
      rows,
    );
  }
}

function table(rows: Row[]): string {
  const lines = ["| Field | Type | Required | Description |", "|---|---|---|---|"];
  for (const row of rows) {
    lines.push(
      `| \`${cell(row.field)}\` | ${cell(row.type)} | ${row.required ? "yes" : "no"} | ${cell(row.description)} |`,
    );
  }
  return lines.join("\n");
}

const yesNo = (supported: boolean) => (supported ? "yes" : "no");

function capabilityMatrix(): string {
  const header = `| | ${PROVIDER_NAMES.join(" | ")} |`;
  const rule = `|---|${PROVIDER_NAMES.map(() => "---").join("|")}|`;
  const caps = PROVIDER_NAMES.map((name) => PROVIDER_SPECS[name].capabilities);
  const row = (label: string, value: (c: (typeof caps)[number]) => string) =>
    `| ${label} | ${caps.map((c) => cell(value(c))).join(" | ")} |`;
  return [
    header,
    rule,
    ...KINDS.map((kind) => row(`\`${kind}\``, (c) => yesNo(c.kinds[kind].supported))),
    row("mount root", (c) => `\`${c.mountRoot}\``),
    row("package managers", (c) => c.environments.packageManagers.join(", ")),
    row("`setup_script`", (c) => yesNo(c.environments.setupScript.supported)),
    row("`self_hosted` environments", (c) => yesNo(c.environments.selfHosted.supported)),
    row("`limited` networking", (c) => yesNo(c.environments.limitedNetworking.supported)),
    row("credential types", (c) =>
      Object.entries(c.credentialTypes)
        .filter(([, s]) => s.supported)
        .map(([t]) => t)
        .join(", "),
    ),
    row("builtin tools", (c) => c.agents.builtinTools.join(", ")),
    row("`ask` permission", (c) => yesNo(c.agents.askPermission.supported)),
    row("`mcp_servers` forms", (c) => c.agents.mcpServerForms.join(", ")),
    row("agent `environment_variables`", (c) => yesNo(c.agents.environmentVariables.supported)),
    row("Forward delivery", (c) => yesNo(c.agents.forwardDelivery.supported)),
    row("session `git_repository` resources", (c) => yesNo(c.agents.sessionResources.supported)),
    row("deployment tunnel", (c) => c.deployments.tunnel),
    row("deployment schedule", (c) => c.deployments.schedule.replace("_", " ")),
    row("channel types", (c) => Object.keys(c.channels.types).join(", ") || "none"),
  ].join("\n");
}

const INTRO = `# agents.yaml reference

<!-- Generated from the zod schema and provider capability data by \`agents docs\`. Do not edit by hand:
     run \`npm run build && node packages/agents/scripts/docs.mjs\`. -->

\`agents.yaml\` declares providers and the resources to create on them. \`agents validate\` checks it;
every finding names \`file:line:col\`, a stable code and a fix.

## Editor support

\`agents schema\` prints the JSON Schema of this file (\`agents init\` also writes it as
\`agents.schema.json\`). Point the YAML language server at it with the first line:

\`\`\`yaml
# yaml-language-server: $schema=./agents.schema.json
\`\`\`

The schema's \`$id\` is \`${SCHEMA_ID}\`.

## YAML

Standard YAML 1.2. Duplicate keys are errors. Anchors, aliases and \`<<: *anchor\` merge keys work;
top-level keys starting with \`x-\` are extension fields that are not validated, a place to keep
anchors:

\`\`\`yaml
x-agent-defaults: &agent-defaults
  model: claude-sonnet-4-5
  environment: default
agents:
  reviewer:
    <<: *agent-defaults
    instructions: prompts/reviewer.md
\`\`\`

Lines end at \`\\n\`, \`\\r\\n\` or a lone \`\\r\`, as YAML reads them; every \`file:line:col\` counts them so.
Each of these is refused at its \`file:line:col\` (AGENTS1000 unless named):

- an alias that stands inside the value its own anchor names (\`&m {self: *m}\`), at the alias;
- a second document (a \`---\` after the first): the file holds one, at the second's start;
- a merge (\`<<:\`) from anything but a mapping, an alias of one or a list of them, at that source;
  a merged value of the wrong type is reported with its rule at the merge (\`<<: *defaults\`);
- aliases and merges that expand the document past 2,000,000 values (an alias bomb such as "billion
  laughs"), at the alias that crosses it; the expanded size is counted, not the aliases, so a thousand
  agents may merge one \`&defaults\`;
- a number written in digits too large to hold (\`1e400\`), at the number, whatever else the file
  holds: quote it to mean the text (\`.inf\` is read as infinity, as written);
- a mapping key that is null (\`~\`, \`null\`, empty) or a collection (\`? [a, b]\`), at the key: quote it
  to mean the text;

## Variables and secrets

- \`\${NAME}\` inside any string value is replaced after the YAML is parsed, one scalar at a time. A
  value containing \`#\`, a newline or quotes stays one value; \`\${NAME}\` in a comment is ignored;
  mapping keys are never interpolated. \`$\${\` writes a literal \`\${\`. A \`\${\` that is never
  closed by \`}\` (\`\${PROVIDER_C_KEY\`) is refused at its value's line and column (AGENTS1011),
  never sent as written.
- Values come from the process environment first, then from \`.env\` files searched from the
  config's folder upward to the project root (the first folder holding \`.git\`, else the
  filesystem root); a nearer \`.env\` wins over a farther one.
- An unset variable is an error at the line and column of its \`\${\` (inside a block scalar too;
  AGENTS1010) that names the variable and every place \`.env\` was looked for. Resolved values are never printed, not even in errors,
  except in fields that hold an object's id (their name ends in \`_id\`: \`agent_id\`,
  \`environment_id\`...): ids are not secrets and are shown, unless the same value is also used as one.
- A substituted value is always a string (a secret such as \`0123\` keeps its leading zero); fields
  that take numbers or booleans cannot be set from variables.
- Inside a flow collection (\`{...}\` or \`[...]\`) quote the reference: \`{token: "\${TOKEN}"}\`.

## Local paths and instructions

Paths (\`skills.*.source\`, \`files.*.source\`, an agent's \`files\` given as strings, deployment
\`file\` resource \`source\`, \`rubric_file\`) are relative to the folder of \`agents.yaml\` and must
exist (AGENTS1020/AGENTS1021). An agent's \`files\`, a \`rubric_file\` and a deployment file's
\`source\` are shown in plans and recorded in state as written, so a clone in another folder reads
the same plan.

\`instructions\` is a file path when the value is one line without whitespace and either ends in
\`.md\`, \`.markdown\` or \`.txt\` or starts with \`./\` or \`../\` (then the file must exist), or contains
a \`/\` and names an existing file. Anything else is inline text; use a block scalar (\`|\`) for
multi-line instructions.

## Which provider a resource targets

A resource's \`provider\` field; else \`defaults.provider\` (a provider name, or \`all\` for every
declared provider); else the only declared provider. With several providers and neither, the
resource is an error (AGENTS1033). Tunnels belong to every declared provider that supports
tunnels. A resource that targets several providers is checked once per provider, and every
reference must name a resource declared for the same provider. \`agents validate --provider NAME\`
checks one provider's view.

Resource addresses (used by \`plan\`, \`state\` and \`import\`) are \`<provider>.<kind>["<name>"]\`, for
example \`provider_c.agents["code.reviewer"]\`; \`provider.kind.name\` and \`kind.name\` are accepted
as shorthand when unambiguous.

## Provider capabilities

Generated from each provider's \`capabilities.ts\`; using a feature a provider lacks is an error
that names the alternative.

`;

export function configurationReference(): string {
  const schema = jsonSchema() as Json;
  const sections: string[] = [INTRO, capabilityMatrix(), ""];
  const top: Row[] = [];
  const props = schema.properties as Json;
  for (const key of ["version", "providers", "state", "defaults"]) {
    top.push({
      field: key,
      type: typeOf(props[key]),
      required: (schema.required ?? []).includes(key),
      description: props[key].description ?? "",
    });
    descend(props[key], key, top);
  }
  sections.push("## Top level", "", table(top), "");
  const blocks: Row[] = [];
  for (const key of ["moved", "import", "removed"]) {
    blocks.push({
      field: key,
      type: typeOf(props[key]),
      required: false,
      description: props[key].description ?? "",
    });
    descend(props[key], key, blocks);
  }
  sections.push(BLOCKS_TITLE, "", BLOCKS_INTRO, table(blocks), "");
  for (const kind of KINDS) {
    const entry = props[kind] as Json;
    const item = entry.additionalProperties as Json;
    const rows: Row[] = [];
    collect(item, "", rows);
    const about = String(item.description ?? entry.description ?? "");
    sections.push(`## \`${kind}.<name>\``, "", `${about.charAt(0).toUpperCase()}${about.slice(1)}.`, "");
    sections.push(table(rows), "");
  }
  sections.push(LIFECYCLE_SECTION);
  sections.push("## Diagnostic codes", "", "| Code | Rule |", "|---|---|");
  for (const [code, rule] of Object.entries(DIAGNOSTIC_CODES)) sections.push(`| ${code} | ${cell(rule)} |`);
  sections.push("");
  return sections.join("\n");
}
