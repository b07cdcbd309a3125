import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TOOLSETS } from "../../src/tools/index.js";
import { type Forge, forgeLogSeq, startForge } from "../forge-sim.js";
import { type RunningForgeMcp, startForgeMcp } from "../helpers.js";

/**
 * A client narrows its tool list per request by header (GitLab's and GitHub's names), and may ask
 * for a tool-name prefix; never past what the operator serves (here the deny regex leaves
 * delete_label out). Plain JSON-RPC over HTTP, each request stateless, as a client sends them.
 */

let forge: Forge;
let mcp: RunningForgeMcp;
beforeAll(async () => {
  forge = await startForge();
  mcp = await startForgeMcp({
    FORGE_TOKEN: "sim-forge-pat",
    FORGE_API_URL: forge.apiUrl,
    GITLAB_DENIED_TOOLS_REGEX: "^delete_label$",
  });
});
afterAll(async () => {
  await mcp?.close();
  await forge?.close();
});

async function rpc(method: string, params: Record<string, unknown>, headers: Record<string, string>) {
  const res = await fetch(`${mcp.url}/mcp`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { result: any }).result;
}

const listed = async (headers: Record<string, string>) =>
  ((await rpc("tools/list", {}, headers)).tools as { name: string }[]).map((t) => t.name);
const call = async (name: string, args: Record<string, unknown>, headers: Record<string, string>) =>
  (await rpc("tools/call", { name, arguments: args }, headers)) as {
    isError?: boolean;
    content: { text: string }[];
  };

const labels = TOOLSETS.labels.map((t) => t.name).filter((n) => n !== "delete_label");
const META = ["search_tools", "discover_tools"];

describe("per-request narrowing by header", () => {
  it.each([
    ["X-MCP-Toolsets: labels", { "x-mcp-toolsets": "labels" }, [...labels, ...META]],
    [
      "X-Gitlab-Enabled-Mcp-Server-Toolsets: labels",
      { "x-gitlab-enabled-mcp-server-toolsets": "labels" },
      [...labels, ...META],
    ],
    [
      "X-MCP-Tools: get_issue,delete_label (denied)",
      { "x-mcp-tools": "get_issue,delete_label" },
      ["get_issue", ...META],
    ],
    [
      "X-Gitlab-Enabled-Mcp-Server-Tools with toolsets: a union",
      { "x-gitlab-enabled-mcp-server-toolsets": "labels", "x-gitlab-enabled-mcp-server-tools": "get_issue" },
      ["get_issue", ...labels, ...META],
    ],
    [
      "X-MCP-Toolsets: labels with X-MCP-Readonly: true",
      { "x-mcp-toolsets": "labels", "x-mcp-readonly": "true" },
      ["list_labels", "get_label", ...META],
    ],
    [
      "X-MCP-Exclude-Tools: create_label,search_tools",
      { "x-mcp-toolsets": "labels", "x-mcp-exclude-tools": "create_label,search_tools" },
      [...labels.filter((n) => n !== "create_label"), "discover_tools"],
    ],
    [
      "X-Gitlab-Mcp-Server-Tool-Name-Prefix: gl_",
      { "x-mcp-toolsets": "labels", "x-gitlab-mcp-server-tool-name-prefix": "gl_" },
      [...labels, ...META].map((n) => `gl_${n}`),
    ],
    [
      "a prefix that is not a name's characters is ignored",
      { "x-mcp-toolsets": "labels", "x-gitlab-mcp-server-tool-name-prefix": "a b" },
      [...labels, ...META],
    ],
  ])("%s", async (_n, headers, expected) => {
    expect(await listed(headers)).toEqual(expected);
  });

  it("without a header the default list is the core, read-only narrows it to its readers", async () => {
    const all = await listed({});
    expect(all).toContain("create_issue");
    const ro = await listed({ "x-mcp-readonly": "true" });
    expect(ro).not.toContain("create_issue");
    expect(ro).toEqual(all.filter((n) => ro.includes(n)));
    expect(ro.length).toBeGreaterThan(10);
  });

  it.each([
    ["a writer under X-MCP-Readonly", "create_issue", { "x-mcp-readonly": "true" }, /readers only/],
    ["an excluded tool", "list_labels", { "x-mcp-exclude-tools": "list_labels" }, /outside the toolsets/],
    ["a tool outside the chosen toolsets", "whoami", { "x-mcp-toolsets": "labels" }, /outside the toolsets/],
  ])("refuses %s, and the forge is not asked", async (_n, name, headers, message) => {
    const before = await forgeLogSeq(forge);
    const r = await call(name, { project_id: "acme/widgets", title: "x" }, headers);
    expect(r.isError).toBe(true);
    expect(r.content[0]!.text).toMatch(message);
    expect(await forgeLogSeq(forge)).toBe(before);
  });

  it.each([
    ["a tool that is not listed, without headers", "list_labels", {}],
    ["a tool by its prefixed name", "gl_whoami", { "x-gitlab-mcp-server-tool-name-prefix": "gl_" }],
    ["a tool inside the chosen toolsets", "list_labels", { "x-mcp-toolsets": "labels" }],
  ])("calls %s", async (_n, name, headers) => {
    const r = await call(name, { project_id: "acme/widgets" }, headers);
    expect(r.isError, r.content[0]!.text).toBeFalsy();
  });
});
