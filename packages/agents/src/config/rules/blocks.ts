// The `moved:`, `import:` and `removed:` lists (schema/blocks.ts): each address is written as plans
// print it, names a known provider and kind, and is declared (or not) as its role needs; no two
// entries claim one address. What only the state can tell (a `to` already recorded, an id that
// does not exist) is checked by the plan (plan/blocks.ts).
import { type AddressParts, formatAddress, parseAddress } from "../../model/address.js";
import { KINDS, type Kind } from "../../model/kinds.js";
import { isProviderName } from "../../model/provider-names.js";
import { closest } from "../../model/suggest.js";
import type { Path } from "../source.js";
import { targetsOf } from "../targets.js";
import type { RuleContext } from "./context.js";

type List = "moved" | "import" | "removed";
type Field = "from" | "to";

interface Written {
  list: List;
  index: number;
  field: Field;
  address: string;
  parts: AddressParts;
}

const EXAMPLE = 'e.g. provider_c.agents["writer"]';

/** Every address the file declares, as plans print them (the canonical form a hint suggests). */
function declaredAddresses(ctx: RuleContext): AddressParts[] {
  const out: AddressParts[] = [];
  for (const kind of KINDS) {
    for (const [name, spec] of ctx.declarations<{ provider?: string }>(kind)) {
      for (const provider of targetsOf(spec.provider, ctx.config, kind)) out.push({ provider, kind, name });
    }
  }
  return out;
}

/** The address at `path` in canonical form, or undefined after reporting why it is not one. */
function readAddress(
  ctx: RuleContext,
  text: string,
  path: Path,
  declared: () => AddressParts[],
): AddressParts | undefined {
  const parsed = parseAddress(text);
  if (parsed.ok && !isProviderName(parsed.value.provider)) {
    ctx.report(
      "AGENTS1070",
      `"${text}": unknown provider "${parsed.value.provider}"`,
      path,
      `the provider is one of provider_a, provider_b, provider_c, provider_d, ${EXAMPLE}`,
    );
    return undefined;
  }
  if (parsed.ok && formatAddress(parsed.value) === text) return parsed.value;
  // A shorthand `agents state mv` accepts: name the one form plans print, resolved when it can be.
  const resolved = parseAddress(text, declared());
  const canonical = resolved.ok ? formatAddress(resolved.value) : undefined;
  ctx.report(
    "AGENTS1070",
    parsed.ok || resolved.ok
      ? `"${text}" is not written as plans print addresses`
      : `${parsed.error.replace(/; write provider.*$/, "")}`,
    path,
    canonical ? `write ${canonical}` : `write provider.kind["name"], ${EXAMPLE}; kinds: ${KINDS.join(", ")}`,
  );
  return undefined;
}

function isDeclared(ctx: RuleContext, parts: AddressParts): boolean {
  return ctx.declaredOn(parts.kind, parts.name, parts.provider);
}

const EXTERNAL_FIELD: Partial<Record<Kind, string>> = {
  environments: "environment_id",
  identities: "identity_id",
  tunnels: "tunnel_id",
};

export function checkBlocks(ctx: RuleContext): void {
  const lists = { moved: ctx.config.moved, import: ctx.config.import, removed: ctx.config.removed };
  if (!lists.moved?.length && !lists.import?.length && !lists.removed?.length) return;
  let declared: AddressParts[] | undefined;
  const known = () => {
    declared ??= declaredAddresses(ctx);
    return declared;
  };
  const written: Written[] = [];
  for (const list of ["moved", "import", "removed"] as const) {
    for (const [index, entry] of (lists[list] ?? []).entries()) {
      for (const field of ["from", "to"] as const) {
        const address = (entry as Partial<Record<Field, string>>)[field];
        if (address === undefined) continue;
        const parts = readAddress(ctx, address, [list, index, field], known);
        if (parts) written.push({ list, index, field, address, parts });
      }
    }
  }
  const at = (w: Written): Path => [w.list, w.index, w.field];
  const ofEntry = (w: Written, field: Field) =>
    written.find((o) => o.list === w.list && o.index === w.index && o.field === field);

  const movedFrom = new Set(
    written.filter((w) => w.list === "moved" && w.field === "from").map((w) => w.address),
  );
  for (const w of written) {
    if (w.field === "from" && isDeclared(ctx, w.parts)) {
      ctx.report(
        "AGENTS1072",
        `${w.list}[${w.index}].from: ${w.address} is still declared in this file`,
        at(w),
        w.list === "moved"
          ? `a move is for a key that was renamed: declare ${ofEntry(w, "to")?.address ?? "the `to` address"} instead of ${w.address}, or remove this entry`
          : "remove the declaration to forget or delete it, or remove this entry",
      );
    }
    // A `to` that another move continues from is a step of a chain (a → b, b → c): not declared.
    if (w.field === "to" && !isDeclared(ctx, w.parts) && !(w.list === "moved" && movedFrom.has(w.address))) {
      const providerDeclared = ctx.config.providers?.[w.parts.provider as never] !== undefined;
      const names = Object.keys(ctx.config[w.parts.kind] ?? {});
      const near = closest(w.parts.name, names);
      ctx.report(
        "AGENTS1073",
        `${w.list}[${w.index}].to: ${w.address} is not declared in this file` +
          (providerDeclared ? "" : ` (${w.parts.provider} is not under \`providers\`)`),
        at(w),
        near
          ? `did you mean ${formatAddress({ ...w.parts, name: near })}? The \`to\` address must be declared`
          : `declare it under \`${w.parts.kind}:\` first; ${w.list === "import" ? "import adopts a remote object into a declaration" : "a move renames a state entry to a declared address"}`,
      );
    }
    if (w.list === "moved" && w.field === "to") {
      const from = ofEntry(w, "from");
      if (from && (from.parts.provider !== w.parts.provider || from.parts.kind !== w.parts.kind)) {
        ctx.report(
          "AGENTS1071",
          `moved[${w.index}]: ${from.address} → ${w.address} changes the ${from.parts.provider !== w.parts.provider ? "provider" : "kind"}; a move renames within one provider and kind`,
          at(w),
          "the remote object cannot change provider or kind: remove the old one with `removed:` and declare or import the new one",
        );
      }
    }
    if (w.list === "import" && w.field === "to") {
      const field = EXTERNAL_FIELD[w.parts.kind];
      const spec = (ctx.config[w.parts.kind] as Record<string, Record<string, unknown>> | undefined)?.[
        w.parts.name
      ];
      if (field && (w.parts.kind === "tunnels" || spec?.[field] !== undefined)) {
        ctx.report(
          "AGENTS1075",
          `import[${w.index}].to: ${w.address} is an external reference (${field}): it is verified on apply, never imported`,
          at(w),
          `remove this entry, or remove ${field} from the declaration to manage the object (then import it here)`,
        );
      }
    }
  }
  checkClaims(ctx, written, lists.import ?? []);
}

/** No two entries claim one address (or one remote id), and moves never loop. */
function checkClaims(ctx: RuleContext, written: Written[], imports: { id: string }[]): void {
  const claims = new Map<string, Written[]>();
  const claim = (key: string, w: Written) => claims.set(key, [...(claims.get(key) ?? []), w]);
  for (const w of written) {
    // `from` addresses (moved and removed) are claimed together: one state entry goes one way.
    if (w.field === "from") claim(`from ${w.address}`, w);
    // `to` addresses (moved and import) likewise: one declaration takes one object.
    else claim(`to ${w.address}`, w);
  }
  for (const [key, ws] of claims) {
    if (ws.length < 2) continue;
    const [first, ...others] = ws as [Written, ...Written[]];
    for (const w of others) {
      ctx.report(
        "AGENTS1074",
        `${w.list}[${w.index}].${w.field}: ${w.address} is already the \`${w.field}\` of ${first.list}[${first.index}]`,
        [w.list, w.index, w.field],
        key.startsWith("from")
          ? "one state entry moves, is forgotten or is deleted once: keep one of these entries"
          : "one declaration takes one remote object: keep one of these entries",
      );
    }
  }
  const ids = new Map<string, number>();
  for (const [index, entry] of imports.entries()) {
    const first = ids.get(entry.id);
    if (first === undefined) ids.set(entry.id, index);
    else
      ctx.report(
        "AGENTS1074",
        `import[${index}].id: ${entry.id} is already imported by import[${first}]`,
        ["import", index, "id"],
        "one remote object is managed by one declaration: keep one of these entries",
      );
  }
  // A cycle (a → b → a) has no address to end at.
  const next = new Map(
    written
      .filter((w) => w.list === "moved" && w.field === "from")
      .map((w) => {
        const to = written.find((o) => o.list === "moved" && o.index === w.index && o.field === "to");
        return [w.address, to] as const;
      }),
  );
  for (const [start, firstStep] of next) {
    let step = firstStep;
    const seen = new Set([start]);
    while (step && next.has(step.address) && !seen.has(step.address)) {
      seen.add(step.address);
      step = next.get(step.address);
    }
    if (step && step.address === start) {
      ctx.report(
        "AGENTS1074",
        `moved[${step.index}].to: ${step.address} closes a cycle of moves (${[...seen].join(" → ")} → ${start})`,
        [step.list, step.index, step.field],
        "a chain of moves ends at the declared address: remove the entry that leads back",
      );
      break;
    }
  }
}
