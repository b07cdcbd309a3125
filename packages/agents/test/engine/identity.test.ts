// The project a run acts for, one case per row of docs/state.md "The project a state belongs to".
import { describe, expect, it } from "vitest";
import { resolveIdentity } from "../../src/engine/identity.js";

const WHERE = 'postgres db:5432/agents schema agents_state workspace "prod"';

describe("the project a state belongs to", () => {
  it.each([
    {
      row: "the state records none yet: the run's own name",
      loaded: { project: "shop-laptop", projectFrom: "folder" as const },
      recorded: undefined,
      expected: { project: "shop-laptop" },
    },
    {
      row: "the state records none yet, AGENTS_PROJECT given: that name",
      loaded: { project: "shop", projectFrom: "AGENTS_PROJECT" as const },
      recorded: undefined,
      expected: { project: "shop" },
    },
    {
      row: "the same name as the state's: nothing to say",
      loaded: { project: "shop", projectFrom: "AGENTS_PROJECT" as const },
      recorded: "shop",
      expected: { project: "shop" },
    },
    {
      row: "the folder's name differs: the state's, with one line saying so",
      loaded: { project: "shop-ci", projectFrom: "folder" as const },
      recorded: "shop",
      expected: {
        project: "shop",
        notice: `note: using project "shop" recorded in the state (${WHERE}), not this folder's name "shop-ci"`,
      },
    },
  ])("$row", ({ loaded, recorded, expected }) => {
    expect(resolveIdentity(loaded, { project: recorded }, WHERE)).toEqual(expected);
  });

  it("AGENTS_PROJECT that differs from the state's: refused, naming both names and the fix", () => {
    expect(() =>
      resolveIdentity({ project: "shop-ci", projectFrom: "AGENTS_PROJECT" }, { project: "shop" }, WHERE),
    ).toThrow(
      `AGENTS_PROJECT is "shop-ci" but the state it uses (${WHERE}) belongs to project "shop" (its resources carry agents.project "shop"); unset AGENTS_PROJECT or set it to "shop", or give project "shop-ci" a state of its own (another state.workspace or state file)`,
    );
  });
});
