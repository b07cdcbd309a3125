import { describe, expect, it } from "vitest";
import { openD } from "../provider-d/setup.js";
import { useWire } from "../support/wire.js";
import { openC } from "./setup.js";

const c = useWire(openC);
const d = useWire(openD);

describe("crash faults for duplicate/orphan tests", () => {
  it.each([
    ["provider_c", () => c, "^/v1/agents$", { name: "a", model: "m" }],
    ["provider_d", () => d, "^/api/v3/agents$", { name: "a", model: { id: "m" } }],
  ])(
    "%s drop_response: the write lands, the client gets no answer, /_sim/state shows the object",
    async (_n, wire, path, json) => {
      const w = wire();
      await w.control("PUT", "/faults", {
        rules: [{ method: "POST", path, nth: 1, action: { type: "drop_response" } }],
      });
      await expect(w.call("POST", "/agents", { json })).rejects.toThrow();
      const state = (await w.control("GET", "/state")).body;
      expect(state.agents).toHaveLength(1);
      // The retry a naive client makes creates a duplicate: exactly what crash tests must catch.
      expect((await w.call("POST", "/agents", { json })).status).toBe(200);
      expect((await w.control("GET", "/state")).body.agents).toHaveLength(2);
      const log = (await w.control("GET", "/log")).body.entries;
      expect(log[0]).toMatchObject({
        method: "POST",
        status: 0,
        fault: expect.stringContaining("drop_response"),
      });
    },
  );

  it("reset (before handling) creates nothing", async () => {
    await c.control("PUT", "/faults", { rules: [{ method: "POST", nth: 1, action: { type: "reset" } }] });
    await expect(c.call("POST", "/environments", { json: { name: "e" } })).rejects.toThrow();
    expect((await c.control("GET", "/state")).body.environments).toEqual([]);
  });
});
