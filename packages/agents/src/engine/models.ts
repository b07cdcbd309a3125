// `agents models list`: the models each configured provider offers, read from its model endpoint.
// Nothing here takes the state lock or writes to the terminal.
import { MODEL_LISTS } from "../providers/models.js";
import type { ProviderName } from "../providers/types.js";
import { StateError } from "../state/types.js";
import { createRuntime, type EngineOptions } from "./api.js";

export interface ModelInfo {
  provider: string;
  id: string;
  display_name?: string;
  /** The provider's model object, as read. */
  remote: Record<string, unknown>;
}

/**
 * The models of every configured provider that lists them (of `provider` alone when given; a
 * provider without a model endpoint is then an error naming the ones that have it).
 */
export async function listModels(
  options: EngineOptions,
  filter: { provider?: string } = {},
): Promise<ModelInfo[]> {
  const configured = Object.keys(options.project.blocks);
  const have = Object.keys(MODEL_LISTS);
  if (filter.provider !== undefined) {
    if (!configured.includes(filter.provider))
      throw new StateError(`${filter.provider} is not configured in ${options.project.configPath}`);
    if (!MODEL_LISTS[filter.provider])
      throw new StateError(`${filter.provider} has no model list; models are listed on ${have.join(", ")}`);
  }
  const providers = filter.provider ? [filter.provider] : configured.filter((p) => MODEL_LISTS[p]).sort();
  if (providers.length === 0)
    throw new StateError(
      `none of the configured providers lists models; models are listed on ${have.join(", ")}`,
    );
  const runtime = createRuntime(options);
  const out: ModelInfo[] = [];
  for (const provider of providers) {
    const list = MODEL_LISTS[provider]!;
    const http = runtime.session(provider as ProviderName).http;
    let after: string | undefined;
    for (let page = 0; page < 100; page++) {
      const res = await http.request<Record<string, unknown>>({
        method: "GET",
        path: list.path,
        query: { limit: 100, ...(after ? { after_id: after } : {}) },
        ...(options.signal ? { signal: options.signal } : {}),
      });
      const data = Array.isArray(res.body?.data) ? (res.body.data as Record<string, unknown>[]) : [];
      for (const m of data)
        out.push({
          provider,
          id: String(m.id),
          ...(typeof m.display_name === "string" ? { display_name: m.display_name } : {}),
          remote: m,
        });
      const next = res.body?.has_more === true ? res.body.last_id : undefined;
      if (typeof next !== "string" || data.length === 0) break;
      after = next;
    }
  }
  return out;
}
