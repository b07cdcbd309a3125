import { z } from "zod";
import type { ApiResult, ForgeApi } from "../forge/api.js";
import { ForgeHttpError } from "../forge/http.js";
import { tool } from "./define.js";

/**
 * GitLab's knowledge graph, Orbit (`/api/v4/orbit/*`, GitLab.com Premium and Ultimate, behind the
 * `knowledge_graph` feature flag): user-scoped graph queries over groups, projects, people, issues,
 * merge requests, pipelines and code. Opt-in (FORGE_TOOLSETS=orbit): a query spends GitLab credits.
 * A forge without Orbit answers 404; the tools say so in words.
 */

async function orbit(call: () => Promise<ApiResult>): Promise<ApiResult> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof ForgeHttpError && err.status === 404)
      throw new ForgeHttpError(
        404,
        "Orbit (the knowledge graph) is not available on this forge: it needs GitLab.com Premium or Ultimate with the knowledge_graph feature flag on",
        err.body,
      );
    throw err;
  }
}

const read = (path: string) => (api: ForgeApi) => orbit(() => api.get(path));

export const orbitTools = [
  tool({
    name: "orbit_query",
    description:
      "Answer a cross-project question in one knowledge-graph query instead of many list calls (node and edge types: orbit_get_schema). Spends GitLab credits.",
    write: false,
    endpoint: "POST /orbit/query",
    input: {
      query: z
        .record(z.string(), z.unknown())
        .describe(
          'e.g. {"query_type":"traversal","node":{"id":"mr","entity":"MergeRequest","columns":["title"]},"limit":5}',
        ),
      format: z.enum(["llm", "raw"]).default("llm").describe("llm: compact text; raw: JSON"),
    },
    run: (api, body) => orbit(() => api.post("/orbit/query", body)),
  }),
  tool({
    name: "orbit_get_schema",
    description: "List the node types (with their properties) and edge types orbit_query can use.",
    write: false,
    endpoint: "GET /orbit/schema",
    input: {},
    run: read("/orbit/schema"),
  }),
  tool({
    name: "orbit_get_status",
    description: "Say whether the knowledge graph is indexed and ready (results reflect the last index run).",
    write: false,
    endpoint: "GET /orbit/status",
    input: {},
    run: read("/orbit/status"),
  }),
  tool({
    name: "orbit_list_tools",
    description: "List the MCP tool definitions Orbit itself serves.",
    write: false,
    endpoint: "GET /orbit/tools",
    input: {},
    run: read("/orbit/tools"),
  }),
];
