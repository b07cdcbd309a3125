import { z } from "zod";
import type { ForgeApi } from "../forge/api.js";
import { ForgeHttpError } from "../forge/http.js";
import { tool } from "./define.js";

/**
 * The operation types a GraphQL document declares, read from its top level (outside strings,
 * comments and selection sets): `query`, `mutation`, `subscription`, and `query` for the shorthand
 * `{ … }`. Anything that is not plainly a query is refused: this tool only reads.
 */
export function operationTypes(doc: string): string[] {
  const ops: string[] = [];
  let depth = 0;
  let i = 0;
  let expectOp = true;
  while (i < doc.length) {
    const c = doc[i]!;
    if (c === "#") {
      while (i < doc.length && doc[i] !== "\n") i++;
    } else if (c === '"') {
      const block = doc.startsWith('"""', i);
      i += block ? 3 : 1;
      while (i < doc.length && !(block ? doc.startsWith('"""', i) : doc[i] === '"'))
        i += doc[i] === "\\" ? 2 : 1;
      i += block ? 3 : 1;
      continue;
    } else if (c === "{") {
      if (depth === 0 && expectOp) ops.push("query");
      depth++;
      expectOp = false;
    } else if (c === "}") {
      depth--;
      if (depth === 0) expectOp = true;
    } else if (depth === 0 && /[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(doc.slice(i))![0];
      if (expectOp) ops.push(m === "fragment" ? "fragment" : m);
      expectOp = false;
      i += m.length;
      continue;
    }
    i++;
  }
  return ops;
}

/** GitLab answers GraphQL errors in a 200; a document that got no data failed. */
export async function runGraphql(
  api: ForgeApi,
  query: string,
  variables: Record<string, unknown> | undefined,
) {
  const r = await api.graphql(query, variables);
  const body = (r.data ?? {}) as { data?: unknown; errors?: Array<{ message?: string }> };
  if (body.errors?.length && !body.data) {
    throw new ForgeHttpError(200, body.errors.map((e) => e.message ?? "error").join("; "), body);
  }
  return { data: body, page: undefined };
}

const document = {
  query: z.string().min(1).max(20_000),
  variables: z.record(z.string(), z.unknown()).optional(),
};

export const graphqlTools = [
  tool({
    name: "graphql_query",
    description:
      "Run a read-only GraphQL query against the forge (GitLab /api/graphql) for what REST lacks. Mutations and subscriptions are refused.",
    write: false,
    endpoint: "POST /api/graphql",
    input: document,
    run: async (api, { query, variables }) => {
      const ops = operationTypes(query).filter((o) => o !== "fragment");
      const bad = ops.filter((o) => o !== "query");
      if (ops.length === 0 || bad.length > 0) {
        throw new Error(
          `graphql_query only runs queries; this document declares ${bad.length ? bad.join(", ") : "no operation"}`,
        );
      }
      return runGraphql(api, query, variables);
    },
  }),
  tool({
    name: "execute_graphql",
    description:
      "Run any GraphQL document against the forge (GitLab /api/graphql), mutations included. A writing tool: absent in read-only mode, and a mutation may delete, so it counts as destructive. For reads, graphql_query.",
    write: true,
    destructive: true,
    endpoint: "POST /api/graphql",
    input: document,
    run: (api, { query, variables }) => runGraphql(api, query, variables),
  }),
];
