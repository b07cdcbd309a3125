import type { Diagnostic } from "../diagnostics.js";
import type { Config } from "../schema/index.js";
import type { YamlSource } from "../source.js";
import { checkAgents } from "./agents.js";
import { checkBlocks } from "./blocks.js";
import { RuleContext } from "./context.js";
import { checkChannels, checkDeployments } from "./deployments.js";
import { checkLifecycle } from "./lifecycle.js";
import { checkMultiagent } from "./multiagent.js";
import { checkProviders } from "./providers.js";
import { checkReferences } from "./references.js";
import {
  checkEnvironments,
  checkIdentities,
  checkKindSupport,
  checkMemoryStores,
  checkMetadata,
  checkSkills,
  checkVaults,
} from "./resources.js";
import { checkInlineSecrets } from "./secrets.js";
import { checkState } from "./state.js";

/**
 * Every local rule of docs/configuration.md#diagnostic-codes, over a config that already passed the schema.
 */
export function runRules(
  config: Config,
  source: YamlSource,
  provider?: string,
  invalid: ReadonlySet<string> = new Set(),
): Diagnostic[] {
  const ctx = new RuleContext(config, source, provider, invalid);
  checkProviders(ctx);
  checkKindSupport(ctx);
  checkReferences(ctx);
  checkEnvironments(ctx);
  checkVaults(ctx);
  checkSkills(ctx);
  checkMemoryStores(ctx);
  checkMetadata(ctx);
  checkIdentities(ctx);
  checkAgents(ctx);
  checkMultiagent(ctx);
  checkDeployments(ctx);
  checkChannels(ctx);
  checkInlineSecrets(ctx);
  checkState(ctx);
  checkBlocks(ctx);
  checkLifecycle(ctx);
  return ctx.diagnostics;
}
