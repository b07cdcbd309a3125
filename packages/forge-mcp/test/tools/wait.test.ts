import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { Progress } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ForgeApi } from "../../src/forge/api.js";
import { createMcpServer } from "../../src/mcp/sdk-server.js";
import { createCatalogue } from "../../src/tools/index.js";
import { type Forge, startForge } from "../forge-sim.js";
import { type RunningForgeMcp, startForgeMcp } from "../helpers.js";

/**
 * wait_for_pipeline, wait_for_job and play_pipeline_jobs (src/tools/wait.ts) against the forge
 * simulator, whose jobs run on its clock: a pipeline driven to its end while the tool waits
 * (progress notifications on the call's own event stream over HTTP, polls at least a second
 * apart), a job that does not finish before timeout_seconds, two manual jobs played in a row
 * (progress growing across both), and a call ended by its client, over HTTP (the request closed)
 * and by notifications/cancelled (the SDK server stdio uses), which stops polling at once.
 */

type Result = { isError?: boolean; content: Array<{ text: string }>; structuredContent?: any };
const P = "/api/v4/projects/1";

let forge: Forge;
let mcp: RunningForgeMcp;
let client: Client;
const rest = async (method: string, path: string, body?: unknown) =>
  (
    await fetch(`${forge.origin}${path}`, {
      method,
      headers: { "private-token": "sim-forge-pat", "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
  ).json() as Promise<any>;
const advance = (seconds: number) => rest("POST", "/_sim/clock", { advance_seconds: seconds });
/** The GETs of one path the forge saw (each test waits on a pipeline of its own). */
const polls = async (path: string) =>
  (
    (await (await fetch(`${forge.origin}/_sim/log`)).json()) as {
      entries: Array<{ method: string; path: string }>;
    }
  ).entries.filter((e) => e.method === "GET" && e.path === path).length;

beforeAll(async () => {
  forge = await startForge();
  mcp = await startForgeMcp({
    MCP_TRANSPORT: "http",
    FORGE_TOKEN: "sim-forge-pat",
    FORGE_API_URL: forge.apiUrl,
    FORGE_TOOLSETS: "pipelines",
  });
  client = new Client({ name: "wait", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${mcp.url}/mcp`)));
});
afterAll(async () => {
  await client?.close();
  await mcp?.close();
  await forge?.close();
});

// The first test moves the simulator's clock; the others, which do not, run side by side after it.
describe("waiting for a pipeline or a job", () => {
  it("waits for a running pipeline to finish, reporting each poll as progress", async () => {
    const pipeline = await rest("POST", `${P}/pipeline`, { ref: "main" });
    const seen: Progress[] = [];
    const result = (await client.callTool(
      {
        name: "wait_for_pipeline",
        arguments: { project_id: 1, pipeline_id: pipeline.id, timeout_seconds: 30, poll_interval_seconds: 1 },
      },
      undefined,
      {
        onprogress: (p) => {
          seen.push(p);
          // the pipeline's jobs run 75 s on the simulator's clock: move it past them after the first poll
          if (seen.length === 1) void advance(200);
        },
      },
    )) as Result;
    expect(result.isError, result.content[0]?.text).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ id: pipeline.id, status: "success" });
    expect(seen.length).toBeGreaterThanOrEqual(2);
    expect(seen[0]).toMatchObject({ total: 30, message: expect.stringMatching(/: (pending|running)$/) });
    expect(seen.at(-1)!.message).toBe(`pipeline ${pipeline.id}: success`);
    // progress is the seconds waited when each read came back (the server's count, whatever the
    // notifications' delivery): never more often than poll_interval_seconds
    for (let i = 1; i < seen.length; i++)
      expect(seen[i]!.progress - seen[i - 1]!.progress).toBeGreaterThanOrEqual(1);
  });

  it.concurrent("gives up at timeout_seconds, naming the last status", async () => {
    const pipeline = await rest("POST", `${P}/pipeline`, { ref: "main" });
    const [job] = await rest("GET", `${P}/pipelines/${pipeline.id}/jobs?scope[]=pending`);
    const started = Date.now();
    const result = (await client.callTool({
      name: "wait_for_job",
      arguments: { project_id: 1, job_id: job.id, timeout_seconds: 1, poll_interval_seconds: 1 },
    })) as Result;
    expect(result.isError).toBe(true);
    // queued for a second, then running for 30 on the simulator's clock
    expect(result.content[0]!.text).toMatch(
      new RegExp(`^Tool failed: job ${job.id} is still (pending|running) after 1 s \\(timeout_seconds\\)$`),
    );
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it.concurrent("answers a finished job at once, and refuses to poll more often than once a second", async () => {
    const [job] = await rest("GET", `${P}/jobs?scope[]=success`);
    const done = (await client.callTool({
      name: "wait_for_job",
      arguments: { project_id: 1, job_id: job.id },
    })) as Result;
    expect(done.structuredContent).toMatchObject({ id: job.id, status: "success" });
    const eager = (await client.callTool({
      name: "wait_for_job",
      arguments: { project_id: 1, job_id: job.id, poll_interval_seconds: 0 },
    })) as Result;
    expect(eager.isError).toBe(true);
    expect(eager.content[0]!.text).toMatch(/poll_interval_seconds/);
  });

  it.concurrent("plays manual jobs one after another, its progress growing across them", async () => {
    await forge.seed({
      pipelines: [
        {
          project: "acme/widgets",
          ref: "main",
          jobs: [
            { name: "first", stage: "deploy", status: "manual", seconds: 0 },
            { name: "second", stage: "deploy", status: "manual", seconds: 0 },
          ],
        },
      ],
    });
    const manual = (await rest("GET", `${P}/jobs?scope[]=manual`)) as Array<{ id: number; name: string }>;
    const ids = ["first", "second"].map((n) => manual.find((j) => j.name === n)!.id);
    const seen: Progress[] = [];
    const result = (await client.callTool(
      {
        name: "play_pipeline_jobs",
        arguments: { project_id: 1, job_ids: ids, timeout_seconds: 10, poll_interval_seconds: 1 },
      },
      undefined,
      { onprogress: (p) => seen.push(p) },
    )) as Result;
    expect(result.isError, result.content[0]?.text).toBeFalsy();
    expect(
      JSON.parse(result.content[0]!.text).map(
        (j: { name: string; status: string }) => `${j.name} ${j.status}`,
      ),
    ).toEqual(["first success", "second success"]);
    // each job read until it finished (a second after it was played), the second only after the first
    const messages = seen.map((p) => p.message!);
    const last = (id: number) => messages.findLastIndex((m) => m.startsWith(`job ${id}:`));
    const first = (id: number) => messages.findIndex((m) => m.startsWith(`job ${id}:`));
    expect(messages[last(ids[0]!)]).toBe(`job ${ids[0]}: success`);
    expect(messages[last(ids[1]!)]).toBe(`job ${ids[1]}: success`);
    expect(last(ids[0]!)).toBeLessThan(first(ids[1]!));
    for (let i = 1; i < seen.length; i++) expect(seen[i]!.progress).toBeGreaterThan(seen[i - 1]!.progress);
    expect(seen.every((p) => p.total === 20)).toBe(true);
  });

  it.concurrent("over HTTP, stops polling when its client ends the request mid-wait", async () => {
    const pipeline = await rest("POST", `${P}/pipeline`, { ref: "main" });
    const gone = new AbortController();
    const res = await fetch(`${mcp.url}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: {
          name: "wait_for_pipeline",
          arguments: { project_id: 1, pipeline_id: pipeline.id, poll_interval_seconds: 1 },
          _meta: { progressToken: "p1" },
        },
      }),
      signal: gone.signal,
    });
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    // the first progress notification, then the client hangs up
    const reader = res.body!.getReader();
    const { value } = await reader.read();
    expect(new TextDecoder().decode(value)).toContain("notifications/progress");
    gone.abort();
    await new Promise((r) => setTimeout(r, 1500));
    expect(await polls(`${P}/pipelines/${pipeline.id}`)).toBe(1);
  });

  it.concurrent("stops polling as soon as its client cancels the call", async () => {
    const server = createMcpServer(
      createCatalogue(
        { readOnly: false, toolsets: ["pipelines"] },
        () => new ForgeApi(forge.apiUrl, "sim-forge-pat", 5000),
      ),
    );
    const [a, b] = InMemoryTransport.createLinkedPair();
    const inProcess = new Client({ name: "in-process", version: "1.0.0" });
    await Promise.all([server.connect(a), inProcess.connect(b)]);
    const pipeline = await rest("POST", `${P}/pipeline`, { ref: "main" });
    const cancel = new AbortController();
    const call = inProcess.callTool(
      {
        name: "wait_for_pipeline",
        arguments: { project_id: 1, pipeline_id: pipeline.id, poll_interval_seconds: 1 },
      },
      undefined,
      { signal: cancel.signal, onprogress: () => cancel.abort() },
    );
    await expect(call).rejects.toThrow(/abort/i);
    // past the next poll's time: no second read came
    await new Promise((r) => setTimeout(r, 1500));
    expect(await polls(`${P}/pipelines/${pipeline.id}`)).toBe(1);
    await inProcess.close();
  });
});
