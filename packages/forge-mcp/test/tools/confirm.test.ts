import type { Client as ClientV2 } from "@modelcontextprotocol/client";
import type { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { confirmationForm, HttpAsker } from "../../src/tools/confirm.js";
import { CLIENT_CB, type Forge, oauthEnv, seedApp, startForge } from "../forge-sim.js";
import { type RunningForgeMcp, SIGN_IN_MODES, startForgeMcp } from "../helpers.js";
import { connectV1, connectV2 } from "../sdk-clients.js";

/**
 * Destructive tools ask the person through MCP elicitation (FORGE_MCP_CONFIRM_DESTRUCTIVE), with the
 * official clients against the forge simulator: an accepted form runs the DELETE, a declined or
 * cancelled one answers isError and the issue is still at the forge.
 */

type ToolResult = { isError?: boolean; content: Array<{ text: string }> };
type Answer = { action: "accept" | "decline" | "cancel"; content?: Record<string, unknown> };
type Call = (name: string, args: Record<string, unknown>) => Promise<ToolResult>;

const modes = SIGN_IN_MODES;

/** A signed-in official client whose elicitation handler answers `answers` in turn (none: no capability). */
async function signedIn(sdk: "v1" | "v2" | "v2 at 2026-07-28", mcpUrl: string, answers?: Answer[]) {
  const asked: Array<{ message: string; requestedSchema: unknown }> = [];
  const handler = async (params: { message: string; requestedSchema: unknown }) => {
    asked.push(params);
    return answers!.shift()!;
  };
  const capabilities = answers ? { elicitation: { form: {} } } : {};
  const { client } =
    sdk === "v1"
      ? await connectV1(mcpUrl, {
          capabilities,
          setup: (c: ClientV1) => {
            if (answers) c.setRequestHandler(ElicitRequestSchema, (r) => handler(r.params as never) as never);
          },
        })
      : await connectV2(mcpUrl, {
          capabilities,
          // 2026-07-28: the form arrives in an input_required result, the answer in the retry
          revision: sdk === "v2" ? "2025" : "2026",
          setup: (c: ClientV2) => {
            if (answers)
              c.setRequestHandler("elicitation/create", (r) => handler(r.params as never) as never);
          },
        });
  if (sdk !== "v1") expect((client as ClientV2).getProtocolEra()).toBe(sdk === "v2" ? "legacy" : "modern");
  const call: Call = (name, args) => client.callTool({ name, arguments: args }) as Promise<ToolResult>;
  return { client, call, asked };
}

async function newIssue(call: Call, title: string): Promise<number> {
  const r = await call("create_issue", { project_id: "acme/widgets", title });
  expect(r.isError).toBeFalsy();
  return JSON.parse(r.content[0]!.text).iid;
}

async function issueExists(call: Call, iid: number): Promise<boolean> {
  const r = await call("get_issue", { project_id: "acme/widgets", issue_iid: iid });
  if (!r.isError) return true;
  expect(r.content[0]!.text).toMatch(/404/);
  return false;
}

describe.each(modes)("confirming destructive tools, %s mode", (mode, extra) => {
  let forge: Forge;
  let mcp: RunningForgeMcp;
  let refusing: RunningForgeMcp;
  let off: RunningForgeMcp;

  beforeAll(async () => {
    forge = await startForge();
    const env = oauthEnv(forge, extra);
    mcp = await startForgeMcp(env);
    refusing = await startForgeMcp({ ...env, FORGE_MCP_CONFIRM_DESTRUCTIVE: "refuse" });
    off = await startForgeMcp({ ...env, FORGE_MCP_CONFIRM_DESTRUCTIVE: "off" });
    await seedApp(
      forge,
      mode === "passthrough" ? [CLIENT_CB] : [mcp, refusing, off].map((m) => `${m.url}/callback`),
    );
  });
  afterAll(async () => {
    for (const m of [mcp, refusing, off]) await m?.close();
    await forge?.close();
  });

  for (const sdk of ["v1", "v2", "v2 at 2026-07-28"] as const) {
    it(`${sdk}: declined and cancelled forms answer isError with no DELETE; an accepted one deletes`, async () => {
      const { client, call, asked } = await signedIn(sdk, mcp.url, [
        { action: "decline" },
        { action: "cancel" },
        { action: "accept", content: { confirm: false } },
        { action: "accept", content: { confirm: true } },
      ]);
      const iid = await newIssue(call, `confirm ${sdk}`);
      for (const outcome of [/declined?/, /cancel/, /answered no/]) {
        const r = await call("delete_issue", { project_id: "acme/widgets", issue_iid: iid });
        expect(r.isError).toBe(true);
        expect(r.content[0]!.text).toMatch(outcome);
        expect(await issueExists(call, iid)).toBe(true);
      }
      const done = await call("delete_issue", { project_id: "acme/widgets", issue_iid: iid });
      expect(done.isError).toBeFalsy();
      expect(await issueExists(call, iid)).toBe(false);
      // the form names the tool and its target; reading and creating never asked
      expect(asked).toHaveLength(4);
      expect(asked[0]!.message).toContain("delete_issue");
      expect(asked[0]!.message).toContain(`issue_iid=${iid}`);
      expect(asked[0]!.message).toContain("project_id=acme/widgets");
      expect(asked[0]!.requestedSchema).toMatchObject({
        properties: { confirm: { type: "boolean" } },
        required: ["confirm"],
      });
      await client.close();
    });
  }

  it("a client without elicitation: runs as before by default, is refused with refuse", async () => {
    const plain = await signedIn("v2", mcp.url);
    const iid = await newIssue(plain.call, "no elicitation");
    expect(
      (await plain.call("delete_issue", { project_id: "acme/widgets", issue_iid: iid })).isError,
    ).toBeFalsy();
    expect(await issueExists(plain.call, iid)).toBe(false);
    await plain.client.close();

    const refused = await signedIn("v2", refusing.url);
    const kept = await newIssue(refused.call, "refused");
    const r = await refused.call("delete_issue", { project_id: "acme/widgets", issue_iid: kept });
    expect(r.isError).toBe(true);
    expect(r.content[0]!.text).toMatch(/needs the person's confirmation/);
    expect(await issueExists(refused.call, kept)).toBe(true);
    await refused.client.close();
  });

  it("FORGE_MCP_CONFIRM_DESTRUCTIVE=off never asks", async () => {
    const { client, call, asked } = await signedIn("v2", off.url, [{ action: "decline" }]);
    const iid = await newIssue(call, "off");
    expect((await call("delete_issue", { project_id: "acme/widgets", issue_iid: iid })).isError).toBeFalsy();
    expect(asked).toHaveLength(0);
    await client.close();
  });
});

describe("HttpAsker: who may answer a confirmation", () => {
  it("only a POST with the asking call's token answers it; another token's answer is not taken", async () => {
    const sent: Array<{ id: string }> = [];
    const peer = { send: async (m: { id: string }) => void sent.push(m) };
    const asker = new HttpAsker(60_000);
    const extra = { authInfo: { token: "alice-token" }, requestId: 1, signal: new AbortController().signal };
    const answer = asker.ask(peer as never, extra, confirmationForm("delete_issue", { issue_iid: 3 }));
    await Promise.resolve();
    const reply = {
      jsonrpc: "2.0",
      id: sent[0]!.id,
      result: { action: "accept", content: { confirm: true } },
    };
    expect(asker.deliver(reply, "mallory-token")).toBe(false);
    expect(asker.deliver({ ...reply, id: "confirm-guessed" }, "alice-token")).toBe(false);
    expect(asker.deliver(reply, "alice-token")).toBe(true);
    await expect(answer).resolves.toEqual({ action: "accept", content: { confirm: true } });
    // answered once: the same answer again is not ours any more
    expect(asker.deliver(reply, "alice-token")).toBe(false);
  });

  it("remembers the elicitation capability by token, from initialize", () => {
    const asker = new HttpAsker();
    // nothing declared yet, nothing waiting: no token may be asked, no body is an answer
    expect(asker.mayAsk("a")).toBe(false);
    expect(asker.deliver({ jsonrpc: "2.0", id: "confirm-x", result: { action: "accept" } }, "a")).toBe(false);
    const init = (capabilities: unknown) => ({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { capabilities },
    });
    asker.noteInitialize(init({ elicitation: {} }), "a");
    asker.noteInitialize(init({ elicitation: { url: {} } }), "b");
    asker.noteInitialize(init({ elicitation: { form: {} } }), "c");
    expect([asker.mayAsk("a"), asker.mayAsk("b"), asker.mayAsk("c"), asker.mayAsk("d")]).toEqual([
      true,
      false,
      true,
      false,
    ]);
    asker.noteInitialize(init({}), "a");
    expect(asker.mayAsk("a")).toBe(false);
  });
});
