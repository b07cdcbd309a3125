import { isKind, type Kind } from "./kinds.js";
import { isProviderName } from "./provider-names.js";

export interface AddressParts {
  provider: string;
  kind: Kind;
  name: string;
}

/**
 * `<provider>.<kind>["<name>"]`, the name JSON-quoted so that YAML keys holding dots, quotes or
 * brackets stay unambiguous, e.g. `provider_c.agents["code.reviewer"]`.
 */
export function formatAddress(parts: AddressParts): string {
  return `${parts.provider}.${parts.kind}[${JSON.stringify(parts.name)}]`;
}

export type ParsedAddress = { ok: true; value: AddressParts } | { ok: false; error: string };

const FULL = /^([A-Za-z0-9_]+)\.([a-z_]+)\[("(?:[^"\\]|\\.)*")\]$/;
const KIND_QUOTED = /^([a-z_]+)\[("(?:[^"\\]|\\.)*")\]$/;

/**
 * Parse an address. Accepted forms:
 * - `provider.kind["name"]` (canonical)
 * - `provider.kind.name` when the name has no dot
 * - `kind["name"]` or `kind.name` when exactly one provider in `known` holds that resource
 */
export function parseAddress(text: string, known: readonly AddressParts[] = []): ParsedAddress {
  const input = text.trim();
  const full = FULL.exec(input);
  if (full) {
    const [, provider, kind, quoted] = full as unknown as [string, string, string, string];
    return build(provider, kind, JSON.parse(quoted) as string, input);
  }
  const kindQuoted = KIND_QUOTED.exec(input);
  if (kindQuoted) {
    const [, kind, quoted] = kindQuoted as unknown as [string, string, string];
    return unique(kind, JSON.parse(quoted) as string, known, input);
  }
  const parts = input.split(".");
  if (parts.length === 3 && isProviderName(parts[0]!)) {
    return build(parts[0]!, parts[1]!, parts[2]!, input);
  }
  if (parts.length >= 2 && isKind(parts[0]!)) {
    return unique(parts[0]!, parts.slice(1).join("."), known, input);
  }
  return {
    ok: false,
    error: `"${input}" is not a resource address; write provider.kind["name"], e.g. provider_c.agents["reviewer"]`,
  };
}

function build(provider: string, kind: string, name: string, input: string): ParsedAddress {
  if (!isKind(kind)) return { ok: false, error: `"${input}": unknown resource kind "${kind}"` };
  if (name.length === 0) return { ok: false, error: `"${input}": the resource name is empty` };
  return { ok: true, value: { provider, kind, name } };
}

function unique(kind: string, name: string, known: readonly AddressParts[], input: string): ParsedAddress {
  if (!isKind(kind)) return { ok: false, error: `"${input}": unknown resource kind "${kind}"` };
  const matches = known.filter((k) => k.kind === kind && k.name === name);
  if (matches.length === 1) return { ok: true, value: matches[0]! };
  if (matches.length === 0) return { ok: false, error: `"${input}": no ${kind} named "${name}" is declared` };
  const options = matches.map((m) => formatAddress(m)).join(", ");
  return {
    ok: false,
    error: `"${input}" is ambiguous: it exists on several providers (${options}); name one`,
  };
}

/**
 * The logical name (the YAML map key) inside an address: `provider_c.agents["code.reviewer"]` →
 * `code.reviewer`. Handlers name remote objects after it without the core passing extra data. A
 * bare address falls back to what follows its last dot.
 */
export function logicalNameOf(address: string): string {
  const bracket = /\["((?:[^"\\]|\\.)*)"\]$/.exec(address);
  if (bracket?.[1] !== undefined) {
    try {
      return JSON.parse(`"${bracket[1]}"`) as string;
    } catch {
      return bracket[1];
    }
  }
  const dot = address.lastIndexOf(".");
  return dot >= 0 ? address.slice(dot + 1) : address;
}
