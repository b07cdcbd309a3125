import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { openD } from "../provider-d/setup.js";
import type { Wire } from "../support/wire.js";
import { useWire } from "../support/wire.js";
import { openC } from "./setup.js";

const c = useWire(openC, { reset: false });
const d = useWire(openD, { reset: false });

const CREATES = ["/environments", "/vaults", "/agents", "/memory_stores", "/sessions"];

/** Bodies near the real shapes (right keys, wrong values) reach deeper validation than pure noise. */
const bodyArb = fc.oneof(
  fc.jsonValue(),
  fc.dictionary(
    fc.constantFrom(
      "name",
      "display_name",
      "model",
      "config",
      "metadata",
      "tools",
      "multiagent",
      "agent",
      "environment_id",
      "resources",
      "skills",
      "mcp_servers",
      "version",
    ),
    fc.jsonValue(),
  ),
);

const cases: [string, () => Wire, (body: any) => void][] = [
  [
    "provider_c",
    () => c,
    (b) =>
      expect(b).toMatchObject({
        type: "error",
        error: { type: expect.any(String), message: expect.any(String) },
      }),
  ],
  [
    "provider_d",
    () => d,
    (b) => expect(b).toMatchObject({ error: { code: expect.any(String), message: expect.any(String) } }),
  ],
];

describe.each(cases)("%s: malformed input never causes a 5xx", (_name, wire, isErrorBody) => {
  it("random JSON bodies on every create endpoint → 2xx or a 4xx in the provider's error shape", async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...CREATES), bodyArb, async (path, json) => {
        const r = await wire().call("POST", path, { json });
        expect(r.status, `${path} ${JSON.stringify(json)}`).toBeLessThan(500);
        if (r.status >= 400) isErrorBody(r.body);
      }),
      { numRuns: 150 },
    );
  });

  it("random query strings on lists → 2xx or 4xx", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...CREATES),
        fc.dictionary(
          fc.constantFrom(
            "limit",
            "page",
            "order",
            "include_archived",
            "created_at[gte]",
            "limit[]",
            "statuses",
          ),
          fc.string(),
        ),
        async (path, query) => {
          const r = await wire().call("GET", `${path}?${new URLSearchParams(query)}`);
          expect(r.status, `${path} ${JSON.stringify(query)}`).toBeLessThan(500);
          if (r.status >= 400) isErrorBody(r.body);
        },
      ),
      { numRuns: 100 },
    );
  });
});
