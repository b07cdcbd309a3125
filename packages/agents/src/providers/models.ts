// The providers' model catalogs (`agents models list`): which providers have one and how it pages.
// Data per provider, so the engine never branches on a provider's name.

export interface ModelList {
  path: string;
  /** `after_id`: `{data, has_more, last_id}` pages. */
  paging: "after_id";
}

/** provider_b `GET /models` (managed gateway) and provider_c `GET /models`; provider_a and provider_d have none. */
export const MODEL_LISTS: Record<string, ModelList> = {
  provider_b: { path: "/models", paging: "after_id" },
  provider_c: { path: "/models", paging: "after_id" },
};
