import type { ForgeState } from "./state.js";

/** An issue's or merge request's `upvotes` and `downvotes`: its thumbsup and thumbsdown award emoji. */
export function votes(state: Pick<ForgeState, "awards">, type: "Issue" | "MergeRequest", id: number) {
  const on = state.awards.filter((a) => a.awardable_type === type && a.awardable_id === id);
  return {
    upvotes: on.filter((a) => a.name === "thumbsup").length,
    downvotes: on.filter((a) => a.name === "thumbsdown").length,
  };
}
