import { describe, expect, it } from "vitest";
import { startSim } from "../src/index.js";

describe("provider_a and provider_b start by name", () => {
  it.each([
    ["provider_a", "/api/v1/agentstudio"],
    ["provider_b", "/api/v1/cloud"],
  ] as const)("startSim(%s) serves under %s", async (name, base) => {
    const sim = await startSim(name, { quiet: true });
    try {
      expect(sim.url.endsWith(base)).toBe(true);
      expect((await fetch(`${sim.origin}/_sim/health`)).status).toBe(200);
    } finally {
      await sim.close();
    }
  });
});
