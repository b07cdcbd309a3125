// Every error the provider code can raise during plan and apply is one of two things (issue 23,
// item 2: whatever validate can know, validate says):
//   - a DeclarationError whose first argument is the id of an apply-time refusal its provider
//     lists (providers/<p>/refusals.ts), which apply-refusals.test.ts proves validate foresees;
//   - an UnforeseeableError (or one of its subclasses), which says why no file can foresee it.
// This reads every `throw` of src/providers/** with a real parser and fails on any other: a new
// bare `throw new Error(...)` in a handler, a DeclarationError with an unlisted id, a rethrow of
// anything but a caught error. It runs in-process on the sources, in well under a second.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "@babel/parser";
import { describe, expect, it } from "vitest";
import { PROVIDER_NAMES, PROVIDERS } from "../../src/providers/catalog.js";
import { WaitTimeoutError } from "../../src/providers/common/wait.js";
import { ProviderHttpError } from "../../src/providers/http.js";
import { StreamCutError } from "../../src/providers/sessions/stream.js";
import { UnforeseeableError } from "../../src/providers/unforeseeable.js";

const ROOT = fileURLToPath(new URL("../../src/providers", import.meta.url));

/** The error classes a throw may construct without a refusal id: each must extend UnforeseeableError. */
const UNFORESEEABLE: Record<string, abstract new (...args: never[]) => Error> = {
  UnforeseeableError,
  ProviderHttpError,
  WaitTimeoutError,
  StreamCutError,
};

type Verdict =
  | { verdict: "refusal"; id: string }
  | { verdict: "unforeseeable"; why: string }
  | { verdict: "rethrow" }
  | { verdict: "bad"; why: string };
type Site = Verdict & { file: string; line: number };

// A Babel AST node, walked generically.
type Node = any;

function walk(node: Node, visit: (node: Node, ancestors: Node[]) => void, ancestors: Node[] = []): void {
  if (!node || typeof node.type !== "string") return;
  visit(node, ancestors);
  const next = [...ancestors, node];
  for (const [key, value] of Object.entries(node)) {
    if (key === "loc" || key === "leadingComments" || key === "trailingComments") continue;
    if (Array.isArray(value)) for (const child of value) walk(child, visit, next);
    else if (value && typeof value === "object") walk(value, visit, next);
  }
}

/** The throw sites of one source file, each with its verdict. */
export function throwSites(file: string, text: string): Site[] {
  const ast = parse(text, { sourceType: "module", plugins: ["typescript"] });
  const helpers = new Map<string, Node[]>();
  walk(ast.program, (node) => {
    if (node.type === "VariableDeclarator" && node.id.type === "Identifier" && node.init) {
      const init = node.init;
      if (init.type === "ArrowFunctionExpression" && init.body.type !== "BlockStatement")
        helpers.set(node.id.name, [...(helpers.get(node.id.name) ?? []), init.body]);
    }
    if (node.type === "FunctionDeclaration" && node.id) {
      const returns: Node[] = [];
      walk(node.body, (n) => {
        if (n.type === "ReturnStatement" && n.argument) returns.push(n.argument);
      });
      // Two helpers of one name in different scopes: every one must pass.
      helpers.set(node.id.name, [...(helpers.get(node.id.name) ?? []), ...returns]);
    }
  });

  function judge(expr: Node, ancestors: Node[], depth: number): Verdict {
    if (expr.type === "TSAsExpression" || expr.type === "TSNonNullExpression")
      return judge(expr.expression, ancestors, depth);
    if (expr.type === "NewExpression" && expr.callee.type === "Identifier") {
      const name: string = expr.callee.name;
      if (name === "DeclarationError") {
        const id = expr.arguments[0];
        return id?.type === "StringLiteral"
          ? { verdict: "refusal", id: id.value }
          : { verdict: "bad", why: "a DeclarationError's first argument must be a literal refusal id" };
      }
      // `agents session` commands only (the sessions handlers and sessions/): never raised by plan
      // or apply (providers/common/errors.ts).
      if (name === "SessionStartRefusal" && /(^|\/)handlers\/sessions\.ts$|^sessions\//.test(file))
        return { verdict: "unforeseeable", why: "session start" };
      if (name in UNFORESEEABLE) {
        const why = name === "UnforeseeableError" ? expr.arguments[0] : undefined;
        return { verdict: "unforeseeable", why: why?.type === "StringLiteral" ? why.value : name };
      }
      return {
        verdict: "bad",
        why: `throws a ${name}, which is neither a DeclarationError nor an UnforeseeableError`,
      };
    }
    if (expr.type === "Identifier") {
      const caught = ancestors.some(
        (a) => a.type === "CatchClause" && a.param?.type === "Identifier" && a.param.name === expr.name,
      );
      return caught
        ? { verdict: "rethrow" }
        : { verdict: "bad", why: `throws ${expr.name}, which is not the error of an enclosing catch` };
    }
    if (expr.type === "CallExpression" && expr.callee.type === "Identifier" && depth < 3) {
      const returns = helpers.get(expr.callee.name);
      if (!returns?.length)
        return {
          verdict: "bad",
          why: `throws what ${expr.callee.name}() returns, which is not a helper of this file`,
        };
      const verdicts = returns.map((r) => judge(r, [], depth + 1));
      return verdicts.find((v) => v.verdict === "bad") ?? verdicts[0]!;
    }
    return { verdict: "bad", why: "throws an expression this guard cannot classify" };
  }

  const sites: Site[] = [];
  walk(ast.program, (node, ancestors) => {
    if (node.type !== "ThrowStatement") return;
    sites.push({ file, line: node.loc.start.line, ...judge(node.argument, ancestors, 0) });
  });
  return sites;
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
  );
}

const SITES = sources(ROOT).flatMap((path) => throwSites(relative(ROOT, path), readFileSync(path, "utf8")));
const LISTED = new Set(PROVIDER_NAMES.flatMap((p) => PROVIDERS[p].applyRefusals.map((r) => r.id)));

describe("every throw of the provider code is a listed refusal or says why no file can foresee it", () => {
  it("finds the throw sites (the scan is not empty)", () => {
    expect(SITES.length).toBeGreaterThan(150);
    expect(SITES.filter((s) => s.verdict === "refusal").length).toBeGreaterThan(50);
  });

  it("has no throw that is neither", () => {
    const bad = SITES.filter((s) => s.verdict === "bad").map((s) => `${s.file}:${s.line}: ${s.why}`);
    expect(bad).toEqual([]);
  });

  it("names only refusals its provider lists", () => {
    const unlisted = SITES.filter((s) => s.verdict === "refusal" && !LISTED.has(s.id)).map(
      (s) => `${s.file}:${s.line}: ${s.verdict === "refusal" ? s.id : ""}`,
    );
    expect(unlisted).toEqual([]);
  });

  it("accepts only error classes that extend UnforeseeableError", () => {
    for (const [name, cls] of Object.entries(UNFORESEEABLE))
      expect(cls === UnforeseeableError || cls.prototype instanceof UnforeseeableError, name).toBe(true);
  });

  it.each([
    ["a bare Error in a handler", 'export async function create() { throw new Error("no"); }', "bad"],
    [
      "a DeclarationError without a literal id",
      'const id = "x";\nthrow new DeclarationError(id, "no");',
      "bad",
    ],
    ["a rethrow of something not caught", "const e = new Error();\nthrow e;", "bad"],
    ["a helper returning a bare Error", 'const oops = () => new Error("no");\nthrow oops();', "bad"],
    ["a rethrow in a catch", "try { f(); } catch (error) { throw error; }", "rethrow"],
    ["a listed refusal", 'throw new DeclarationError("provider_b.x", "no");', "refusal"],
    ["an unforeseeable error", 'throw new UnforeseeableError("answer", "no");', "unforeseeable"],
    [
      "a helper returning an HTTP error",
      'const fail = (m) => new ProviderHttpError(m);\nthrow fail("x");',
      "unforeseeable",
    ],
  ])("judges %s", (_what, code, verdict) => {
    expect(throwSites("probe.ts", code).map((s) => s.verdict)).toEqual([verdict]);
  });
});
