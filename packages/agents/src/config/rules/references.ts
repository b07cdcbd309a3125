import { KINDS, type Kind } from "../../model/kinds.js";
import { didYouMean } from "../../model/suggest.js";
import { referencesOf } from "../references.js";
import type { RuleContext } from "./context.js";

const SINGULAR: Record<Kind, string> = {
  environments: "environment",
  tunnels: "tunnel",
  vaults: "vault",
  memory_stores: "memory store",
  skills: "skill",
  files: "file",
  identities: "identity",
  agents: "agent",
  channels: "channel",
  deployments: "deployment",
};

/** Every reference names a declared resource that exists on the referrer's provider. */
export function checkReferences(ctx: RuleContext): void {
  for (const kind of KINDS) {
    for (const [name, spec] of ctx.declarations<{ provider?: string }>(kind)) {
      const refs = referencesOf(kind, spec, ctx.config);
      if (refs.length === 0) continue;
      const targets = ctx.targets(spec);
      for (const ref of refs) {
        const path = [kind, name, ...ref.path];
        const declarations = ctx.config[ref.kind] ?? {};
        if (ctx.invalid.has(`${ref.kind}\u0000${ref.name}`)) continue; // its schema errors are reported
        if (!Object.hasOwn(declarations, ref.name)) {
          const declared = Object.keys(declarations);
          if (ref.role === "default identity") continue; // reported once, at defaults.identity
          ctx.report(
            "AGENTS1040",
            `${kind}.${name}: ${ref.role} "${ref.name}" is not declared${didYouMean(ref.name, declared)}`,
            path,
            declared.length > 0
              ? `declared ${ref.kind}: ${declared.join(", ")}`
              : `declare it under \`${ref.kind}:\``,
          );
          continue;
        }
        for (const { provider, caps } of targets) {
          if (!caps.kinds[ref.kind].supported) continue; // the feature rules name the alternative
          if (!ctx.declaredOn(ref.kind, ref.name, provider)) {
            ctx.report(
              "AGENTS1041",
              `${kind}.${name}: ${SINGULAR[ref.kind]} "${ref.name}" is not declared for ${provider}, which this ${SINGULAR[kind]} targets`,
              path,
              `give ${ref.kind}.${ref.name} \`provider: ${provider}\` (or a default covering it), or pin ${kind}.${name} to the provider it is declared for`,
            );
          }
        }
      }
    }
  }
}
