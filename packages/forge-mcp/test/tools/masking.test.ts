import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { TTL_MS } from "../../src/forge/project-ids.js";
import { createMcpServer } from "../../src/mcp/sdk-server.js";
import { stdioCatalogue } from "../../src/tools/index.js";
import { loadMasking, type Masker, type MaskPolicy } from "../../src/tools/masking.js";
import { type Forge, forgeCallsSince, forgeLogSeq, startForge } from "../forge-sim.js";
import { postToolCall, type RunningForgeMcp, startForgeMcp } from "../helpers.js";

/**
 * GITLAB_MASKING_ENABLED (src/tools/masking.ts): what the built-in rules mask and what they leave
 * alone, the operator's files (gitlab-mcp's format), managed policies per project, and the masking
 * of a real answer on every lane: stdio, the /mcp lane, the SDK's server behind Express, and MCP
 * 2026-07-28, text and structured content alike, the structured content still valid for the tool's
 * outputSchema (the official client checks it).
 */

const dir = mkdtempSync(join(tmpdir(), "forge-mcp-mask-"));
const file = (name: string, content: unknown) => {
  const path = join(dir, name);
  writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content));
  return path;
};
const settings = (over: Record<string, unknown> = {}) => ({
  maskingEnabled: true,
  maskingConfig: undefined,
  maskingPolicyFile: undefined,
  maskingWorkspaceDir: dir,
  ...over,
});
const one = (p: MaskPolicy | undefined): Masker => {
  const m = p?.select({ apiUrl: "https://gitlab.example.com/api/v4", projects: [], projectTool: false });
  if (!m || "refused" in m) throw new Error("no masker");
  return m;
};
const builtin = one(loadMasking(settings()));

const BODY = "x".repeat(20);
const SHA = "3f786850e387550fdab836ed7e6dc881de23001b";

describe("the built-in rules", () => {
  it.each<[string, string, string]>([
    ...["glpat", "glrt", "glptt", "gldt", "glcbt", "glsoat", "gloas", "glagent", "glft", "glimt"].map(
      (p): [string, string, string] => [
        `a ${p}- token`,
        `use ${p}-${BODY}_Y-z now`,
        "use [Token masked] now",
      ],
    ),
    ["a routable token with its dotted tail", `t=glpat-${BODY}.01.1a2b3c4d5`, "t=[Token masked]"],
    [
      "a token in a URL's query",
      `https://h/x?private_token=glpat-${BODY}&a=1`,
      "https://h/x?private_token=[Token masked]&a=1",
    ],
    ["a prefix with too short a body (no token)", "glpat-short", "glpat-short"],
    ["a prefix inside a word (no token)", `xglpat-${BODY}`, `xglpat-${BODY}`],
    ["an IPv4 address", "from 10.1.2.3.", "from [IP address]."],
    ["an IPv4 address with a port", "10.1.2.3:8080", "[IP address]:8080"],
    [
      "a bare dotted quad (an address or a version: masked, as gitlab-mcp does)",
      "version 1.2.3.4",
      "version [IP address]",
    ],
    ["a v-prefixed version (no address)", "v1.2.3.4", "v1.2.3.4"],
    ["a five-part version (no address)", "1.2.3.4.5", "1.2.3.4.5"],
    ["a three-part version (no address)", "1.4.0", "1.4.0"],
    ["octets past 255 (no address)", "300.1.2.3", "300.1.2.3"],
    ["an IPv6 address", "at 2001:db8::8a2e:370:7334 now", "at [IP address] now"],
    ["IPv6 loopback in brackets", "http://[::1]:3000/", "http://[[IP address]]:3000/"],
    ["a full IPv6 address", "fe80:0:0:0:1ff:fe23:4567:890a", "[IP address]"],
    ["an IPv4-mapped IPv6 address", "::ffff:10.1.2.3", "[IP address]"],
    ["an IPv4-compatible IPv6 address", "::10.1.2.3", "[IP address]"],
    ["eight groups with an IPv4 tail", "1:2:3:4:5:6:10.1.2.3", "[IP address]"],
    ["nine groups (no address)", "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7:8:9"],
    ["two :: (no address)", "1::2::3", "1::2::3"],
    ["a group of five digits (no address)", "12345::1", "12345::1"],
    ["a commit SHA (untouched)", SHA, SHA],
    [
      "a C++ or Rust path (untouched)",
      "std::vector and Foo::Bar and a::b",
      "std::vector and Foo::Bar and a::b",
    ],
    [
      "a time of day (untouched)",
      "at 12:30:45 on 2026-12-07T00:45:41Z",
      "at 12:30:45 on 2026-12-07T00:45:41Z",
    ],
    ["a MAC address (untouched)", "00:1a:2b:3c:4d:5e", "00:1a:2b:3c:4d:5e"],
  ])("%s", (_name, input, expected) => {
    expect(builtin.text(input)).toBe(expected);
  });

  it("masks string values only: keys, numbers and booleans keep their place and type", () => {
    const v = { "10.0.0.1": 1, n: 10, ok: true, list: ["10.0.0.2", { deep: `glpat-${BODY}` }], nil: null };
    expect(builtin.value(v)).toEqual({
      "10.0.0.1": 1,
      n: 10,
      ok: true,
      list: ["[IP address]", { deep: "[Token masked]" }],
      nil: null,
    });
  });

  it("masks each field on its own: a token split over two fields leaves two halves, neither a token (documented)", () => {
    const split = { title: "glpat-A1b2C3", description: "d4E5f6G7h8I9j0K1" };
    expect(builtin.value(split)).toEqual(split);
    expect(builtin.value({ ...split, note: `glpat-${BODY}` })).toEqual({ ...split, note: "[Token masked]" });
  });

  it("masks a result's text as the JSON it is (escapes included) and plain text as text, errors too", () => {
    const structured = { description: `a\n"glpat-${BODY}"\tb`, web_url: "http://10.0.0.9/x" };
    const r = builtin.result({
      content: [{ type: "text", text: JSON.stringify(structured) }],
      structuredContent: structured,
    });
    expect(JSON.parse(r.content[0]!.text)).toEqual(r.structuredContent);
    expect(r.structuredContent).toEqual({
      description: 'a\n"[Token masked]"\tb',
      web_url: "http://[IP address]/x",
    });
    const log = builtin.result({
      content: [{ type: "text", text: `$ curl 10.0.0.9\n{"token": "glpat-${BODY}"}` }],
    });
    expect(log.content[0]!.text).toBe('$ curl [IP address]\n{"token": "[Token masked]"}');
    const err = builtin.result({
      isError: true,
      content: [{ type: "text", text: `Forge error 400: glpat-${BODY}` }],
    });
    expect(err).toEqual({
      isError: true,
      content: [{ type: "text", text: "Forge error 400: [Token masked]" }],
    });
  });
});

describe("the operator's masking config (GITLAB_MASKING_CONFIG)", () => {
  it("adds keywords and regular expressions, and switches or renames the built-ins", () => {
    const m = one(
      loadMasking(
        settings({
          maskingConfig: file("rules.json", {
            version: 1,
            rules: [
              {
                id: "codename",
                type: "keyword",
                match: "Project Nightjar",
                caseSensitive: false,
                replacement: "[codename]",
              },
              { id: "ticket", type: "regex", pattern: "SEC-\\d+", replacement: "[ticket]" },
            ],
            builtins: { ipv4: { enabled: false }, "gitlab-token": { replacement: "***" } },
          }),
        }),
      ),
    );
    expect(m.text(`project nightjar SEC-42 10.0.0.1 glpat-${BODY}`)).toBe("[codename] [ticket] 10.0.0.1 ***");
  });

  it("an overlap of two rules is one span: no tail of the longer secret survives", () => {
    const m = one(
      loadMasking(
        settings({
          maskingConfig: file("overlap.json", {
            rules: [{ id: "tail", type: "regex", pattern: "x+!!!", replacement: "[tail]" }],
          }),
        }),
      ),
    );
    expect(m.text(`glpat-${BODY}!!!?`)).toBe("[Token masked]?");
    expect(m.text("xx!!!?")).toBe("[tail]?");
  });

  it("reads .gitlab-mcp-mask.json from the workspace when GITLAB_MASKING_CONFIG is unset", () => {
    const ws = mkdtempSync(join(tmpdir(), "forge-mcp-ws-"));
    writeFileSync(
      join(ws, ".gitlab-mcp-mask.json"),
      JSON.stringify({ rules: [{ id: "k", type: "keyword", match: "hunter2", replacement: "[pw]" }] }),
    );
    expect(one(loadMasking(settings({ maskingWorkspaceDir: ws }))).text("pw hunter2")).toBe("pw [pw]");
  });

  it.each([
    ["a missing file", "missing.json", /GITLAB_MASKING_CONFIG: cannot read .*missing\.json \(ENOENT\)/],
    ["not JSON", "{nope", /is not valid JSON/],
    [
      "a rule without replacement",
      { rules: [{ id: "k", type: "keyword", match: "hunter2" }] },
      /rule "k" needs a "replacement"/,
    ],
    [
      "an unknown type",
      { rules: [{ id: "k", type: "glob", match: "hunter2", replacement: "x" }] },
      /"type" must be/,
    ],
    [
      "an invalid pattern",
      { rules: [{ id: "k", type: "regex", pattern: "(hunter2", replacement: "x" }] },
      /rule "k": "pattern" is not a valid/,
    ],
    [
      "a pattern matching nothing",
      { rules: [{ id: "k", type: "regex", pattern: "(hunter2)?", replacement: "x" }] },
      /matches the empty string/,
    ],
    [
      "a flag JavaScript would misread",
      { rules: [{ id: "k", type: "regex", pattern: "hunter2", flags: "y", replacement: "x" }] },
      /"flags" may hold only/,
    ],
    [
      "an unknown built-in",
      { builtins: { email: { enabled: false } } },
      /builtins\.email is not a built-in rule/,
    ],
    [
      "a managed reference without the policy file",
      { mode: "managed", version: 2, policyGroup: "team" },
      /set GITLAB_MASKING_POLICY_FILE/,
    ],
  ])("refuses %s with one line that never shows a keyword or pattern", (_name, content, message) => {
    const path = content === "missing.json" ? join(dir, "missing.json") : file(`bad-${_name}.json`, content);
    let err: Error | undefined;
    try {
      loadMasking(settings({ maskingConfig: path }));
    } catch (e) {
      err = e as Error;
    }
    expect(err?.message).toMatch(message);
    expect(err?.message).not.toContain("hunter2");
    expect(err?.message).not.toContain("\n");
  });

  it("is off without GITLAB_MASKING_ENABLED, files or not", () => {
    expect(
      loadMasking(settings({ maskingEnabled: false, maskingConfig: join(dir, "missing.json") })),
    ).toBeUndefined();
  });
});

describe("a managed policy (GITLAB_MASKING_POLICY_FILE)", () => {
  const policy = (extra: Record<string, unknown> = {}) =>
    file(`policy-${Object.keys(extra).join("-")}.json`, {
      version: 1,
      policyGroups: {
        team: { rules: [{ id: "k", type: "keyword", match: "hunter2", replacement: "[team]" }] },
        other: { builtins: { ipv4: { enabled: false } } },
      },
      bindings: [
        { gitlabInstance: "https://gitlab.example.com", policyGroup: "team", projectIds: [1, 2] },
        { gitlabInstance: "https://gitlab.example.com/", policyGroup: "other", projectIds: [3] },
      ],
      ...extra,
    });
  const api = "https://gitlab.example.com/api/v4";
  const pick = (p: MaskPolicy, projects: unknown[], projectTool = true) => {
    const m = p.select({ apiUrl: api, projects, projectTool });
    return "refused" in m ? m.refused : m.text("hunter2 10.0.0.1");
  };
  it.each([
    ["a bound project by id", [1], true, "[team] [IP address]"],
    ["a bound project by id as a string", ["2"], true, "[team] [IP address]"],
    ["another group's project", [3], true, "hunter2 10.0.0.1"],
    ["an unbound project: refused", [9], true, /project 9 is bound to no policy group/],
    ["a project by path: refused (bindings name ids)", ["acme/widgets"], true, /by numeric id/],
    ["two projects of two groups: refused", [1, 3], true, /span two policy groups/],
    ["a project tool naming none: refused", [], true, /names no project/],
    ["a call of no project: refused by default", [], false, /not covered/],
  ])("%s", (_name, projects, projectTool, expected) => {
    const got = pick(loadMasking(settings({ maskingPolicyFile: policy() }))!, projects, projectTool);
    if (typeof expected === "string") expect(got).toBe(expected);
    else expect(got).toMatch(expected);
  });

  it("unboundProjectBehavior builtin masks project-less calls with the built-ins only", () => {
    const p = loadMasking(settings({ maskingPolicyFile: policy({ unboundProjectBehavior: "builtin" }) }))!;
    expect(pick(p, [], false)).toBe("hunter2 [IP address]");
  });

  it("a workspace's managed reference keeps its server to that group", () => {
    const p = loadMasking(
      settings({
        maskingPolicyFile: policy(),
        maskingConfig: file("ref.json", { mode: "managed", version: 2, policyGroup: "team" }),
      }),
    )!;
    expect(pick(p, [1])).toBe("[team] [IP address]");
    expect(pick(p, [3])).toMatch(/not the one GITLAB_MASKING_CONFIG names/);
  });

  it("refuses a binding to an unknown group and a project bound twice", () => {
    expect(() =>
      loadMasking(
        settings({
          maskingPolicyFile: policy({
            bindings: [{ gitlabInstance: api, policyGroup: "nope", projectIds: [1] }],
          }),
        }),
      ),
    ).toThrow(/unknown policy group "nope"/);
    expect(() =>
      loadMasking(
        settings({
          maskingPolicyFile: policy({
            bindings: [
              { gitlabInstance: api, policyGroup: "team", projectIds: [1] },
              { gitlabInstance: "https://gitlab.example.com", policyGroup: "other", projectIds: [1] },
            ],
          }),
        }),
      ),
    ).toThrow(/bound to two policy groups/);
  });
});

/** A tool result as the clients return it. */
type Result = {
  isError?: boolean;
  content: Array<{ type: string; text: string }>;
  structuredContent?: unknown;
};

describe("masking on every lane, against the forge simulator", () => {
  const TOKEN = `glpat-${"A1b2C3d4".repeat(3)}`;
  let forge: Forge;
  let iid: number;
  let http: RunningForgeMcp;
  let express: RunningForgeMcp;
  let plain: RunningForgeMcp;
  const envOf = (extra: Record<string, string> = {}) => ({
    FORGE_TOKEN: "sim-forge-pat",
    FORGE_API_URL: forge.apiUrl,
    // a short list: the official client compiles every listed tool's outputSchema
    FORGE_TOOLSETS: "issues",
    ...extra,
  });

  beforeAll(async () => {
    forge = await startForge();
    const r = await fetch(`${forge.apiUrl}/projects/1/issues`, {
      method: "POST",
      headers: { "private-token": "sim-forge-pat", "content-type": "application/json" },
      body: JSON.stringify({
        title: `Rotate ${TOKEN}`,
        description: `The runner at 10.1.2.3 (fe80::1ff:fe23:4567:890a) leaked ${TOKEN}; fixed in ${SHA}, v1.2.3.4`,
      }),
    });
    iid = ((await r.json()) as { iid: number }).iid;
    const masked = { GITLAB_MASKING_ENABLED: "true" };
    [http, express, plain] = await Promise.all([
      startForgeMcp(envOf(masked)),
      startForgeMcp(envOf(masked), { lane: false }),
      startForgeMcp(envOf()),
    ]);
  });
  afterAll(async () => {
    await Promise.all([http?.close(), express?.close(), plain?.close()]);
    await forge?.close();
  });

  /** get_issue through the official client, which checks structuredContent against the outputSchema. */
  async function viaClient(connect: (c: Client) => Promise<void>): Promise<Result> {
    const client = new Client({ name: "masking", version: "1.0.0" });
    await connect(client);
    await client.listTools();
    const r = (await client.callTool({
      name: "get_issue",
      arguments: { project_id: 1, issue_iid: iid },
    })) as Result;
    await client.close();
    return r;
  }
  const overHttp = (mcp: RunningForgeMcp) => () =>
    viaClient((c) => c.connect(new StreamableHTTPClientTransport(new URL(`${mcp.url}/mcp`))));

  /** get_issue as one plain JSON-RPC request (what the JSON path answers without the SDK's client). */
  const plainCall = async (mcp: RunningForgeMcp, headers: Record<string, string>, meta = {}) =>
    (await postToolCall(mcp, "get_issue", { project_id: 1, issue_iid: iid }, headers, meta)).body
      .result as Result;
  const V2025 = { "mcp-protocol-version": "2025-06-18" };

  const expectMasked = (r: Result) => {
    expect(r.isError).toBeFalsy();
    const text = r.content[0]!.text;
    const structured = r.structuredContent as { title: string; description: string };
    for (const seen of [text, JSON.stringify(structured)]) {
      expect(seen).not.toContain(TOKEN);
      expect(seen).not.toContain("glpat-");
      expect(seen).not.toContain("10.1.2.3");
      expect(seen).not.toContain("fe80::");
      // what is no secret stays: the SHA and a v-prefixed version
      expect(seen).toContain(SHA);
      expect(seen).toContain("v1.2.3.4");
    }
    // the same secret in two fields is masked in each
    expect(structured.title).toBe("Rotate [Token masked]");
    expect(structured.description).toBe(
      `The runner at [IP address] ([IP address]) leaked [Token masked]; fixed in ${SHA}, v1.2.3.4`,
    );
    expect(JSON.parse(text)).toEqual(structured);
  };

  it.each([
    ["HTTP, the /mcp lane (src/mcp-lane.ts)", () => overHttp(http)()],
    ["HTTP, the /mcp route behind Express (no lane)", () => plainCall(express, V2025)],
    [
      "stdio (the catalogue main serves on stdin and stdout)",
      () =>
        viaClient(async (c) => {
          const config = loadConfig(envOf({ GITLAB_MASKING_ENABLED: "true" }));
          const server = createMcpServer(stdioCatalogue(config, config.forgeToken!, {}));
          const [a, b] = InMemoryTransport.createLinkedPair();
          await server.connect(a);
          await c.connect(b);
        }),
    ],
    [
      "HTTP, MCP 2026-07-28",
      () =>
        plainCall(
          http,
          { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "get_issue" },
          {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
          },
        ),
    ],
  ])("%s: tokens and addresses are masked in text and structured content", async (_lane, call) => {
    expectMasked(await call());
  });

  describe("a managed policy (GITLAB_MASKING_POLICY_FILE), a project named by id, path or URL (a path resolved to its id: src/forge/project-ids.ts)", () => {
    let managed: RunningForgeMcp;
    let clock = 0;
    let mover: { id: number; iid: number };
    const alice = { "private-token": "sim-forge-pat" };
    // dave is a member of nothing: acme/platform/infra (project 2, private) is hidden from him
    const dave = { "private-token": "sim-forge-pat-dave" };
    const forgeCall = async (method: string, path: string, body: Record<string, unknown>) => {
      const r = await fetch(`${forge.apiUrl}${path}`, {
        method,
        headers: { ...alice, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      if (!r.ok) throw new Error(`${method} ${path}: ${r.status}`);
      return (await r.json()) as { id: number; iid: number };
    };
    const newProject = async (path: string, title: string) => {
      const { id } = await forgeCall("POST", "/projects", {
        path,
        namespace_path: "acme",
        visibility: "public",
      });
      return { id, iid: (await forgeCall("POST", `/projects/${id}/issues`, { title })).iid };
    };
    const faults = (rules: unknown[]) =>
      fetch(`${forge.origin}/_sim/faults`, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ rules }),
      });
    const getIssue = async (args: Record<string, unknown>, who: Record<string, string> = alice) =>
      (await postToolCall(managed, "get_issue", args, { ...V2025, ...who })).body.result as Result;
    /** A refusal's text, the path it names replaced, so two refusals compare as the caller reads them. */
    const refusalOf = (r: Result, path: string) => {
      expect(r.isError).toBe(true);
      return r.content[0]!.text.replace(JSON.stringify(path), "<path>");
    };

    beforeAll(async () => {
      mover = await newProject("mover", "Mover one");
      const policy = file("sim-paths-policy.json", {
        version: 1,
        policyGroups: {
          widgets: { rules: [{ id: "r", type: "keyword", match: "Rotate", replacement: "[r]" }] },
          mover: { rules: [{ id: "m", type: "keyword", match: "Mover", replacement: "[m]" }] },
        },
        bindings: [
          { gitlabInstance: forge.origin, policyGroup: "widgets", projectIds: [1, 2] },
          { gitlabInstance: forge.origin, policyGroup: "mover", projectIds: [mover.id] },
        ],
      });
      managed = await startForgeMcp(
        envOf({
          GITLAB_MASKING_ENABLED: "true",
          GITLAB_MASKING_POLICY_FILE: policy,
          REMOTE_AUTHORIZATION: "true",
        }),
        { now: () => clock },
      );
    });
    afterAll(async () => {
      await faults([]);
      await managed?.close();
    });

    it("a managed policy masks a bound project's answer with its group and refuses an unbound one before any forge call", async () => {
      const bound = await plainCall(managed, { ...V2025, ...alice });
      expect((bound.structuredContent as { title: string }).title).toBe("[r] [Token masked]");
      const since = await forgeLogSeq(forge);
      const unbound = await getIssue({ project_id: 4, issue_iid: 1 });
      expect(unbound).toMatchObject({ isError: true });
      expect(unbound.content[0]!.text).toMatch(/project 4 is bound to no policy group/);
      expect(await forgeCallsSince(forge, since, "/api/v4/projects/4/issues/1")).toBe(0);
    });

    it.each<[string, () => Record<string, unknown>]>([
      ["by path", () => ({ project_id: "acme/widgets", issue_iid: iid })],
      ["by path in another case", () => ({ project_id: "ACME/Widgets", issue_iid: iid })],
      ["by URL-encoded path", () => ({ project_id: "acme%2Fwidgets", issue_iid: iid })],
      ["by the issue's web URL", () => ({ url: `${forge.origin}/acme/widgets/-/issues/${iid}` })],
    ])("%s: masked exactly as by its numeric id, the forge asked by that id", async (_row, args) => {
      const byId = await getIssue({ project_id: 1, issue_iid: iid });
      expect((byId.structuredContent as { title: string }).title).toBe("[r] [Token masked]");
      const since = await forgeLogSeq(forge);
      expect(await getIssue(args())).toEqual(byId);
      expect(await forgeCallsSince(forge, since, `/api/v4/projects/1/issues/${iid}`)).toBe(1);
    });

    it.each<[string, Record<string, string>, string, unknown[]]>([
      ["an unknown path", alice, "acme/nope", []],
      // the attack: alice's look-up of the hidden project is kept for alice only
      ["a path that exists but the caller cannot see (same refusal)", dave, "acme/platform/infra", []],
      ["a path whose look-up the forge forbids (403)", alice, "acme/widgets", [403]],
      ["a path whose look-up fails at the forge (503)", alice, "acme/widgets", [503]],
      ["a path whose look-up meets a dropped connection", alice, "acme/widgets", ["reset"]],
    ])("%s: refused, no forge data call, never run unmasked", async (_row, who, path, fault) => {
      if (who === dave) {
        // alice sees acme/platform/infra: her look-up resolves, and is kept, for her
        const r = await getIssue({ project_id: path, issue_iid: 1 });
        expect(r.content[0]!.text).not.toMatch(/could not be resolved/);
      } else clock += TTL_MS + 1; // no look-up kept from the rows before
      await faults(
        fault.map((f) => ({
          path: `^/api/v4/projects/${encodeURIComponent(path)}$`,
          action: f === "reset" ? { type: "reset" } : { type: "status", status: f },
        })),
      );
      const since = await forgeLogSeq(forge);
      const got = refusalOf(await getIssue({ project_id: path, issue_iid: 1 }, who), path);
      await faults([]);
      expect(got).toMatch(/refused: project <path> could not be resolved to its numeric id/);
      if (fault[0] === 503 || fault[0] === "reset")
        expect(got).toMatch(/the forge did not answer the look-up/);
      else
        expect(got).toBe(
          refusalOf(await getIssue({ project_id: "acme/nope", issue_iid: 1 }, dave), "acme/nope"),
        );
      for (const data of [
        `/api/v4/projects/${encodeURIComponent(path)}/issues/1`,
        "/api/v4/projects/2/issues/1",
      ])
        expect(await forgeCallsSince(forge, since, data)).toBe(0);
    });

    it("a renamed project: its old path reaches it (by id) until the look-up expires, then names the new one", async () => {
      const byPath = { project_id: "acme/mover", issue_iid: mover.iid };
      expect((await getIssue(byPath)).structuredContent).toMatchObject({ title: "[m] one" });
      // renamed, and another project takes its old path (bound to no policy group)
      await forgeCall("PUT", `/projects/${mover.id}`, { path: "moved" });
      const taker = await newProject("mover", "Mover two");
      const since = await forgeLogSeq(forge);
      expect((await getIssue(byPath)).structuredContent).toMatchObject({ title: "[m] one" });
      expect(await forgeCallsSince(forge, since, `/api/v4/projects/${mover.id}/issues/${mover.iid}`)).toBe(1);
      clock += TTL_MS + 1;
      const after = await getIssue({ project_id: "acme/mover", issue_iid: taker.iid });
      expect(after.isError).toBe(true);
      expect(after.content[0]!.text).toMatch(`project ${taker.id} is bound to no policy group`);
      expect(await forgeCallsSince(forge, since, `/api/v4/projects/${taker.id}/issues/${taker.iid}`)).toBe(0);
    });
  });

  it("without GITLAB_MASKING_ENABLED the answer is the forge's as written", async () => {
    const r = await plainCall(plain, V2025);
    expect(r.content[0]!.text).toContain(TOKEN);
    expect(r.content[0]!.text).toContain("10.1.2.3");
  });
});
