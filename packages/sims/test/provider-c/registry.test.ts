import { describe, expect, it } from "vitest";
import { startSim } from "../../src/index.js";

describe("registry", () => {
  it.each(["provider_c", "provider_d"] as const)("startSim(%s) works from the sources too", async (name) => {
    const sim = await startSim(name, { quiet: true });
    try {
      const r = await fetch(`${sim.origin}/_sim/health`);
      expect(await r.json()).toMatchObject({ name, ok: true });
    } finally {
      await sim.close();
    }
  });
});
