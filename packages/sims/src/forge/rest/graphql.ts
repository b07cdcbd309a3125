import type { Express } from "express";
import type { SimContext } from "../../core/sim.js";
import {
  canReadProject,
  canSeeGroup,
  findGroup,
  findProject,
  groupFullPath,
  projectFullPath,
} from "../model/access.js";
import { addNote } from "../model/notes.js";
import type { ForgeState, ForgeUser, Project } from "../model/state.js";
import { checkToken } from "../oauth/tokens.js";
import { catalogRoot } from "./graphql-catalog.js";
import { type Args, connection, GqlError, type Obj, type Value } from "./graphql-kit.js";
import { workItemGraphql } from "./graphql-work-items.js";
import { canSeeIssue } from "./issues.js";
import { ciConfigGraphql } from "./lint.js";
import { FORGE_VERSION } from "./users.js";

/**
 * A minimal GitLab GraphQL endpoint (`POST /api/graphql`, `{query, variables}`): queries and one
 * mutation (`createNote`, with the `api` scope), inline fragments (`... on Type`), no named ones. Root fields: `currentUser`, `metadata`, `project(fullPath:)` (with `issues` and
 * `mergeRequests` connections taking `state` and `first`), `group(fullPath:)`, the CI/CD catalog
 * (`ciCatalogResources`, `ciCatalogResource`), the CI lint (`ciConfig`, ./lint.ts), and those of ./graphql-work-items.ts. Answers
 * `{data}` or, for a document it cannot run, `{errors: [{message}]}` with status 200 as GitLab does.
 */

interface Field {
  alias: string;
  name: string;
  args: Args;
  selection: Field[] | null;
}

/** Tokenizes and parses one operation: `[query|mutation [Name] [($v: T = d, …)]] { selection }`. */
function parse(doc: string, variables: Args): { operation: "query" | "mutation"; fields: Field[] } {
  const tokens =
    doc.match(/"(?:[^"\\]|\\.)*"|\.\.\.|[{}():,$!=[\]@]|-?\d+(?:\.\d+)?|[A-Za-z_][A-Za-z0-9_]*|#[^\n]*/g) ??
    [];
  // Commas are insignificant in GraphQL, like white space.
  const t = tokens.filter((x) => !x.startsWith("#") && x !== ",");
  let i = 0;
  const peek = () => t[i];
  const take = (want?: string) => {
    const x = t[i++];
    if (x === undefined || (want !== undefined && x !== want))
      throw new GqlError(`Parse error: expected ${want ?? "a token"}, got ${x ?? "end of document"}`);
    return x;
  };
  const defaults: Args = {};
  // Declared variables that may be null: one left out of `variables` is null (GraphQL spec §6.1.2).
  const nullable = new Set<string>();
  if (peek() === "subscription") throw new GqlError("This GraphQL simulator answers no subscriptions");
  const operation = peek() === "mutation" ? "mutation" : "query";
  if (peek() === "query" || peek() === "mutation") {
    take();
    if (peek() !== "{" && peek() !== "(") take();
    if (peek() === "(") {
      take("(");
      while (peek() !== ")") {
        take("$");
        const name = take();
        take(":");
        let last = "";
        while (![")", "$", "="].includes(peek() ?? ")")) last = take();
        if (last !== "!") nullable.add(name);
        if (peek() === "=") {
          take("=");
          defaults[name] = value();
        }
      }
      take(")");
    }
  }
  const vars = { ...defaults, ...variables };
  function value(): Value {
    const x = take();
    if (x === "$") {
      const n = take();
      if (!(n in vars)) {
        if (nullable.has(n)) return null;
        throw new GqlError(`Variable $${n} is used but not given`);
      }
      return vars[n];
    }
    if (x.startsWith('"')) return JSON.parse(x);
    if (/^-?\d/.test(x)) return Number(x);
    if (x === "true" || x === "false") return x === "true";
    if (x === "null") return null;
    if (x === "[") {
      const out: Value[] = [];
      while (peek() !== "]") out.push(value());
      take("]");
      return out;
    }
    if (x === "{") {
      const out: Args = {};
      while (peek() !== "}") {
        const k = take();
        take(":");
        out[k] = value();
      }
      take("}");
      return out;
    }
    return x; // an enum value
  }
  function selection(): Field[] {
    take("{");
    const out: Field[] = [];
    while (peek() !== "}") {
      if (peek() === "...") {
        // an inline fragment `... on Type { … }` (named fragments are not supported)
        take("...");
        if (peek() !== "on")
          throw new GqlError("Only inline fragments (... on Type) are supported by this simulator");
        take("on");
        const on = take();
        out.push({ alias: "", name: "...", args: { on }, selection: selection() });
        continue;
      }
      let name = take();
      let alias = name;
      if (peek() === ":") {
        take(":");
        name = take();
      }
      const args: Args = {};
      if (peek() === "(") {
        take("(");
        while (peek() !== ")") {
          const k = take();
          take(":");
          args[k] = value();
        }
        take(")");
      }
      out.push({ alias, name, args, selection: peek() === "{" ? selection() : null });
      alias = "";
    }
    take("}");
    return out;
  }
  const root = selection();
  if (i < t.length) throw new GqlError("Only one operation per document is supported");
  return { operation, fields: root };
}

function resolve(obj: Obj, fields: Field[]): Record<string, Value> {
  const out: Record<string, Value> = {};
  for (const f of fields) {
    if (f.name === "...") {
      const types = [obj.__typename, ...((obj.__implements as string[] | undefined) ?? [])];
      if (types.includes(String(f.args.on))) Object.assign(out, resolve(obj, f.selection ?? []));
      continue;
    }
    if (!(f.name in obj)) throw new GqlError(`Field '${f.name}' doesn't exist on type '${obj.__typename}'`);
    const raw = obj[f.name];
    const v = typeof raw === "function" ? (raw as (a: Args) => Value)(f.args) : raw;
    out[f.alias] = shape(v, f);
  }
  return out;
}

function shape(v: Value, f: Field): Value {
  if (v === null || v === undefined) return null;
  if (Array.isArray(v)) return v.map((x) => shape(x, f));
  if (typeof v === "object") {
    if (!f.selection)
      throw new GqlError(
        `Field '${f.name}' of type '${(v as Obj).__typename}' must have a selection of subfields`,
      );
    return resolve(v as Obj, f.selection);
  }
  if (f.selection) throw new GqlError(`Selections can't be made on scalars (field '${f.name}')`);
  return v;
}

export function graphqlRoutes(app: Express, ctx: SimContext<ForgeState>): void {
  app.post("/api/graphql", (req, res) => {
    const s = ctx.state;
    const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? "");
    let me: ForgeUser | null = null;
    let writeScope = false;
    if (m?.[1]) {
      const check = checkToken(s, m[1]);
      if (!check.ok) return void res.status(401).json({ errors: [{ message: "Invalid token" }] });
      if (!check.scopes.some((x) => x === "api" || x === "read_api"))
        return void res.status(403).json({ errors: [{ message: "insufficient_scope" }] });
      me = check.user;
      writeScope = check.scopes.includes("api");
    }
    const body = (req.body ?? {}) as { query?: unknown; variables?: unknown };
    if (typeof body.query !== "string")
      return void res.json({ errors: [{ message: "No query string was present" }] });
    const gid = (type: string, id: number) => `gid://gitlab/${type}/${id}`;
    const userObj = (u: ForgeUser): Obj => ({
      __typename: "UserCore",
      id: gid("User", u.id),
      username: u.username,
      name: u.name,
      state: u.state,
      webUrl: `${ctx.origin}/${u.username}`,
    });
    // the work item fields (./graphql-work-items.ts) build projects too: projectObj is assigned below
    let projectObj: (p: Project) => Obj | null = () => null;
    const extra = workItemGraphql({
      s,
      me,
      origin: ctx.origin,
      gid,
      userObj,
      projectObj: (p) => projectObj(p),
    });
    const root: Obj = {
      __typename: "Query",
      ...extra.root,
      currentUser: me ? userObj(me) : null,
      metadata: { __typename: "Metadata", version: FORGE_VERSION, revision: "sim" },
      // the CI/CD catalog: ciCatalogResources, ciCatalogResource (./graphql-catalog.ts)
      ...catalogRoot(s, me, ctx.origin),
      ...ciConfigGraphql(s, me),
      project: (a: Args) => {
        const p = typeof a.fullPath === "string" ? findProject(s, a.fullPath) : undefined;
        if (!p || !canReadProject(s, me, p)) return null;
        return projectObj(p);
      },
      group: (a: Args) => {
        const g = typeof a.fullPath === "string" ? findGroup(s, a.fullPath) : undefined;
        if (!g || !canSeeGroup(s, me, g)) return null;
        const full = groupFullPath(s, g);
        return {
          __typename: "Group",
          id: gid("Group", g.id),
          name: g.name,
          fullPath: full,
          description: g.description,
          visibility: g.visibility,
          webUrl: `${ctx.origin}/groups/${full}`,
          ...extra.group(g),
        } satisfies Obj;
      },
    };
    projectObj = (p: Project): Obj => {
      {
        const full = projectFullPath(s, p);
        const state = (a2: Args) => (x: { state: string }) =>
          typeof a2.state === "string" ? x.state === a2.state : true;
        return {
          __typename: "Project",
          id: gid("Project", p.id),
          name: p.name,
          fullPath: full,
          description: p.description,
          visibility: p.visibility,
          archived: p.archived,
          webUrl: `${ctx.origin}/${full}`,
          issues: (a2: Args) =>
            connection(
              s.issues
                .filter((i) => i.project_id === p.id && canSeeIssue(s, i, me))
                .filter(state(a2))
                .sort((x, y) => y.iid - x.iid),
              a2,
              (i) => ({
                __typename: "Issue",
                id: gid("Issue", i.id),
                iid: String(i.iid),
                title: i.title,
                state: i.state,
                confidential: i.confidential,
                webUrl: `${ctx.origin}/${full}/-/issues/${i.iid}`,
              }),
              "Issue",
            ),
          mergeRequests: (a2: Args) =>
            connection(
              s.mergeRequests
                .filter((x) => x.project_id === p.id)
                .filter(state(a2))
                .sort((x, y) => y.iid - x.iid),
              a2,
              (x) => ({
                __typename: "MergeRequest",
                id: gid("MergeRequest", x.id),
                iid: String(x.iid),
                title: x.title,
                state: x.state,
                draft: x.draft,
                sourceBranch: x.source_branch,
                targetBranch: x.target_branch,
                webUrl: `${ctx.origin}/${full}/-/merge_requests/${x.iid}`,
              }),
              "MergeRequest",
            ),
          ...extra.project(p),
        } satisfies Obj;
      }
    };
    // One mutation, GitLab's createNote: a comment on an issue or merge request by its global id.
    const mutation: Obj = {
      __typename: "Mutation",
      ...extra.mutation,
      createNote: (a: Args) => {
        const input = (a.input ?? {}) as Args;
        // a work item is an issue: its global id names the same record
        const ref = /^gid:\/\/gitlab\/(Issue|MergeRequest|WorkItem)\/(\d+)$/.exec(
          String(input.noteableId ?? ""),
        );
        const on = ref
          ? ref[1] !== "MergeRequest"
            ? s.issues.find((x) => x.id === Number(ref[2]))
            : s.mergeRequests.find((x) => x.id === Number(ref[2]))
          : undefined;
        const project = on && s.projects.find((p) => p.id === on.project_id);
        const visible =
          on &&
          project &&
          canReadProject(s, me, project) &&
          (!("confidential" in on) || canSeeIssue(s, on, me));
        if (!me || !on || !visible)
          throw new GqlError(
            "The resource that you are attempting to access does not exist or you don't have permission to perform this action",
          );
        if (typeof input.body !== "string" || !input.body.trim())
          return { __typename: "CreateNotePayload", note: null, errors: ["Note can't be blank"] };
        const { note } = addNote(s, on, me.id, input.body);
        return {
          __typename: "CreateNotePayload",
          errors: [],
          note: {
            __typename: "Note",
            id: gid("Note", note.id),
            body: note.body,
            // internal notes are not kept apart by this simulator: the flag is answered as asked
            internal: input.internal === true,
            createdAt: note.created_at,
            author: userObj(me),
          },
        };
      },
    };
    try {
      const vars = body.variables && typeof body.variables === "object" ? (body.variables as Args) : {};
      const doc = parse(body.query, vars);
      if (doc.operation === "mutation" && !writeScope)
        throw new GqlError(
          "The resource that you are attempting to access does not exist or you don't have permission to perform this action",
        );
      res.json({ data: resolve(doc.operation === "mutation" ? mutation : root, doc.fields) });
    } catch (err) {
      if (!(err instanceof GqlError)) throw err;
      res.json({ errors: [{ message: err.message }] });
    }
  });
}
