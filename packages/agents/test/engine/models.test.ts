// `agents models list` through the library against the simulators: one row per provider that has
// a model endpoint, and the providers without one refused by name.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listModels } from "../../src/index.js";
import { type SessionWorld, sessionWorld } from "./sessions-project.js";

let world: SessionWorld;
beforeAll(async () => {
  world = await sessionWorld(undefined, "agents-models-");
}, 30_000);
afterAll(() => world?.close());

describe("models list", () => {
  it.each([
    ["provider_b", ["auto", "efficient", "performance", "ultimate"]],
    ["provider_c", ["claude-opus-4-5", "claude-sonnet-4-5", "claude-haiku-4-5"]],
  ])("%s lists its catalog", async (provider, ids) => {
    const models = await listModels(await world.options(), { provider });
    expect(models.map((m) => m.id)).toEqual(ids);
    for (const m of models) expect(m).toMatchObject({ provider, remote: { id: m.id } });
  });

  it.each(["provider_a", "provider_d"])(
    "%s has no model list: one error naming the providers that have one",
    async (provider) => {
      await expect(listModels(await world.options(), { provider })).rejects.toThrow(
        `${provider} has no model list; models are listed on provider_b, provider_c`,
      );
    },
  );

  it("without --provider: every configured provider that lists models, in order", async () => {
    const models = await listModels(await world.options());
    expect([...new Set(models.map((m) => m.provider))]).toEqual(["provider_b", "provider_c"]);
    // Reads only: no write reached any simulator.
    for (const sim of Object.values(world.sims))
      expect(sim.log.since().filter((e) => e.method !== "GET")).toEqual([]);
  });
});
