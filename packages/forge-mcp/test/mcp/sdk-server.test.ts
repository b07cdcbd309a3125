import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { safeParseAsync } from "@modelcontextprotocol/sdk/server/zod-compat.js";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { TOOLSET_NAMES } from "../../src/config.js";
import type { ForgeApi } from "../../src/forge/api.js";
import type { CatalogueTool } from "../../src/mcp/catalogue.js";
import { createMcpServer, inputSchemaOf, parseArguments } from "../../src/mcp/sdk-server.js";
import { createCatalogue } from "../../src/tools/index.js";

/**
 * What the model sees: tools/list, as the official client receives it, checked in whole for the
 * default list, read-only and every toolset (regenerate after a reviewed change with
 * `npx vitest run packages/forge-mcp/test/mcp/sdk-server.test.ts -u`), and the compaction rules
 * and the token budgets asserted on their own so a snapshot update cannot quietly undo them.
 */

const noForge = () => ({}) as ForgeApi;

async function listed(opts: { readOnly: boolean; toolsets: string[] | undefined }) {
  const server = createMcpServer(createCatalogue(opts, noForge));
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "snapshot", version: "1.0.0" });
  await Promise.all([server.connect(a), client.connect(b)]);
  const { tools } = await client.listTools();
  await client.close();
  await server.close();
  return tools;
}

// tokens ≈ bytes of the JSON the client hands the model ÷ 4: of each tool its name, description
// and inputSchema, what a host turns into the model's tool definition (outputSchema is the
// client's, to validate results; bench/context.mjs measures the same)
const tokens = (tools: { name: string; description?: string; inputSchema: unknown }[]) =>
  Buffer.byteLength(
    JSON.stringify(tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema }))),
  ) / 4;

describe("tools/list, as the model sees it", () => {
  it.each([
    ["default", { readOnly: false, toolsets: undefined }, 8_000],
    ["read-only", { readOnly: true, toolsets: undefined }, 8_000],
    // gitlab-mcp 2.1.64 with every toolset: 80,392 tokens by this same measure (name, description
    // and inputSchema; bench/results/context.md); half of it
    ["every toolset", { readOnly: false, toolsets: [...TOOLSET_NAMES] }, 40_196],
  ])("%s: checked in, compact, within its budget", async (name, opts, budget) => {
    const tools = await listed(opts);
    // one tool a line, so a review sees which tools changed
    await expect(`${tools.map((t) => JSON.stringify(t)).join("\n")}\n`).toMatchFileSnapshot(
      `fixtures/tools-list.${name.replace(" ", "-")}.snap`,
    );
    const text = JSON.stringify(tools);
    expect(text).not.toContain("$schema");
    expect(text).not.toContain("9007199254740991");
    expect(text).not.toContain("taskSupport");
    expect(text).not.toContain('"openWorldHint":true');
    expect(tokens(tools)).toBeLessThanOrEqual(budget);
  });
});

/**
 * A tool's arguments are parsed as the SDK's McpServer parses them (its asynchronous parse), but
 * synchronously where the schema allows it: the same result either way, and a schema with an
 * asynchronous step still parsed (src/mcp/sdk-server.ts, parseArguments).
 */
describe("parseArguments", () => {
  const tool = (input: CatalogueTool["input"]): CatalogueTool => ({
    name: "t",
    toolset: "t",
    description: "",
    input,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handler: async () => ({ content: [] }),
  });
  const asyncCheck = z.string().refine(async (v) => v !== "no", "not no");
  it.each<[string, CatalogueTool["input"], unknown, boolean, boolean]>([
    ["a plain schema, valid: answered at once", { n: z.number() }, { n: 1 }, false, true],
    ["a plain schema, invalid: answered at once", { n: z.number() }, { n: "1" }, false, false],
    ["an asynchronous refinement, valid: parsed asynchronously", { s: asyncCheck }, { s: "yes" }, true, true],
    [
      "an asynchronous refinement, invalid: parsed asynchronously",
      { s: asyncCheck },
      { s: "no" },
      true,
      false,
    ],
  ])("%s", async (_name, input, args, isPromise, success) => {
    const t = tool(input);
    const r = parseArguments(t, args);
    expect(r instanceof Promise).toBe(isPromise);
    const result = await r;
    expect(result.success).toBe(success);
    expect(result).toEqual(await safeParseAsync(inputSchemaOf(t), args));
  });
});
