import { KINDS } from "../../model/kinds.js";
import { didYouMean } from "../../model/suggest.js";
import { allowsInsecureHttp, insecureEndpointProblem } from "../../providers/endpoint.js";
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
  checkEndpoints(ctx);
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

/** The fields of a provider block that set the endpoint the API key is sent to. */
const ENDPOINT_FIELDS = ["base_url", "gateway"] as const;

/** A plain http:// endpoint on another host sends the API key in clear text (AGENTS1036). */
function checkEndpoints(ctx: RuleContext): void {
  const blocks = (ctx.config.providers ?? {}) as Record<string, Record<string, unknown> | undefined>;
  for (const [provider, block] of Object.entries(blocks)) {
    if (!block || allowsInsecureHttp(block)) continue;
    for (const field of ENDPOINT_FIELDS) {
      const url = block[field];
      if (typeof url !== "string") continue;
      const problem = insecureEndpointProblem(url, `providers.${provider}.${field}`);
      if (problem) ctx.report("AGENTS1036", problem.message, ["providers", provider, field], problem.hint);
    }
  }
}
