import { KINDS } from "../../model/kinds.js";
import { didYouMean } from "../../model/suggest.js";
import { declaredProviders } from "../targets.js";
import type { RuleContext } from "./context.js";

/** `providers`, `defaults`, `provider:` pins, and whether every resource has a target. */
export function checkProviders(ctx: RuleContext): void {
  const { config } = ctx;
  const declared = declaredProviders(config);
  if (declared.length === 0) {
    ctx.report(
      "AGENTS1030",
      "no provider is declared under `providers`",
      ["providers"],
      "add a block such as\nproviders:\n  provider_c:\n    api_key: ${PROVIDER_C_API_KEY}",
    );
    return;
  }
  if (ctx.only !== undefined && !declared.includes(ctx.only)) {
    ctx.report(
      "AGENTS1032",
      `--provider ${ctx.only} is not declared under \`providers\`${didYouMean(ctx.only, declared)}`,
      ["providers"],
      `declared providers: ${declared.join(", ")}`,
    );
  }
  const fallback = config.defaults?.provider;
  if (fallback !== undefined && fallback !== "all" && !declared.includes(fallback)) {
    ctx.report(
      "AGENTS1032",
      `defaults.provider "${fallback}" is not a declared provider${didYouMean(fallback, [...declared, "all"])}`,
      ["defaults", "provider"],
      `use one of: ${[...declared, "all"].join(", ")}`,
    );
  }
  const identity = config.defaults?.identity;
  if (
    identity !== undefined &&
    config.identities?.[identity] === undefined &&
    !ctx.invalid.has(`identities\u0000${identity}`)
  ) {
    ctx.report(
      "AGENTS1034",
      `defaults.identity "${identity}" is not a declared identity${didYouMean(identity, Object.keys(config.identities ?? {}))}`,
      ["defaults", "identity"],
      "declare it under `identities:`",
    );
  }
  for (const kind of KINDS) {
    for (const [name, spec] of ctx.declarations<{ provider?: string }>(kind)) {
      if (spec.provider !== undefined) {
        if (!declared.includes(spec.provider)) {
          ctx.report(
            "AGENTS1032",
            `${kind}.${name}: provider "${spec.provider}" is not declared under \`providers\`${didYouMean(spec.provider, declared)}`,
            [kind, name, "provider"],
            `declared providers: ${declared.join(", ")}`,
          );
        }
      } else if (fallback === undefined && declared.length > 1 && kind !== "tunnels") {
        ctx.reportAtKey(
          "AGENTS1033",
          `${kind}.${name}: cannot tell which provider it targets (${declared.join(", ")} are declared)`,
          [kind, name],
          "add `provider:` to the resource, or set `defaults.provider` (a provider name or `all`)",
        );
      }
    }
  }
}
