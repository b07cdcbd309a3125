import type { Request, Response } from "express";
import type { SimContext } from "../../core/sim.js";
import { caller, groupAccessLevel, loadGroup, loadProject } from "../model/access.js";
import type { VariableRow } from "../model/state.js";
import { ACCESS, type ForgeState } from "../model/state.js";
import { forbidden, missing, notFound } from "../wire/answers.js";
import { paginate } from "../wire/paginate.js";
import { boolParam, params, str } from "../wire/params.js";
import { type Routes, twins } from "../wire/router.js";

/**
 * Project and group CI/CD variables (`/projects/:id/variables`, `/groups/:id/variables`), for
 * maintainers: one key may exist once per environment scope, and a key held by several scopes must
 * be named with `filter[environment_scope]` (409 otherwise). A hidden variable's value reads null.
 */

const KEY = /^[a-zA-Z0-9_]{1,255}$/;

function variableJson(v: VariableRow) {
  return {
    variable_type: v.variable_type,
    key: v.key,
    value: v.hidden ? null : v.value,
    hidden: v.hidden,
    protected: v.protected,
    masked: v.masked,
    raw: v.raw,
    environment_scope: v.environment_scope,
    description: v.description,
  };
}

/** `filter[environment_scope]`, from the query (read as a nested object) or the body. */
function scopeFilter(req: Request): string | undefined {
  const f = params(req).filter as Record<string, unknown> | undefined;
  return str(f?.environment_scope) ?? str(params(req)["filter[environment_scope]"]);
}

export function variableRoutes(r: Routes, ctx: SimContext<ForgeState>): void {
  const all = () => {
    ctx.state.variables ??= [];
    return ctx.state.variables;
  };

  /** The owner a request names (`project:1`, `group:2`), for maintainers only; null when answered. */
  const both = twins(r, [
    (req: Request, res: Response) => {
      const p = loadProject(ctx.state, req, res, ACCESS.maintainer);
      return p ? `project:${p.id}` : null;
    },
    (req: Request, res: Response) => {
      const g = loadGroup(ctx.state, req, res);
      if (!g) return null;
      if (groupAccessLevel(ctx.state, caller(res)?.user ?? null, g) < ACCESS.maintainer) {
        forbidden(res);
        return null;
      }
      return `group:${g.id}`;
    },
  ]);

  /** The one variable `:key` names (within the scope filter), or an answered 404/409. */
  const one = (req: Request, res: Response, owner: string) => {
    const scope = scopeFilter(req);
    const found = all().filter(
      (v) =>
        v.owner === owner &&
        v.key === req.params.key &&
        (scope === undefined || v.environment_scope === scope),
    );
    if (found.length === 0) {
      notFound(res, "Variable");
      return null;
    }
    if (found.length > 1) {
      res.status(409).json({
        message:
          "There are multiple variables with provided parameters. Please use 'filter[environment_scope]'",
      });
      return null;
    }
    return found[0]!;
  };

  both.get(["/projects/:id/variables", "/groups/:id/variables"], (owner, req, res) => {
    const rows = all().filter((v) => v.owner === owner);
    res.json(paginate(req, res, ctx.origin, rows).map(variableJson));
  });

  both.get(["/projects/:id/variables/:key", "/groups/:id/variables/:key"], (owner, req, res) => {
    const v = one(req, res, owner);
    if (v) res.json(variableJson(v));
  });

  both.post(["/projects/:id/variables", "/groups/:id/variables"], (owner, req, res) => {
    const b = params(req);
    const key = str(b.key);
    const value = str(b.value);
    if (key === undefined || value === undefined)
      return missing(res, ...(key === undefined ? ["key"] : []), ...(value === undefined ? ["value"] : []));
    if (!KEY.test(key))
      return void res.status(400).json({
        message: { key: ["can contain only letters, digits and '_'."] },
      });
    const scope = str(b.environment_scope) ?? "*";
    if (all().some((v) => v.owner === owner && v.key === key && v.environment_scope === scope))
      return void res.status(400).json({ message: { key: [`(${key}) has already been taken`] } });
    const masked = boolParam(b.masked) ?? boolParam(b.masked_and_hidden) ?? false;
    if (masked && (value.length < 8 || /\s/.test(value)))
      return void res.status(400).json({ message: { value: ["is invalid"] } });
    const v: VariableRow = {
      owner,
      key,
      value,
      variable_type: b.variable_type === "file" ? "file" : "env_var",
      protected: boolParam(b.protected) ?? false,
      masked,
      hidden: boolParam(b.masked_and_hidden) ?? false,
      raw: boolParam(b.raw) ?? false,
      environment_scope: scope,
      description: str(b.description) ?? null,
    };
    all().push(v);
    res.status(201).json(variableJson(v));
  });

  both.put(["/projects/:id/variables/:key", "/groups/:id/variables/:key"], (owner, req, res) => {
    const v = one(req, res, owner);
    if (!v) return;
    const b = params(req);
    // GitLab's PUT requires the value, even when only a flag changes
    const value = str(b.value);
    if (value === undefined) return missing(res, "value");
    v.value = value;
    if (b.variable_type === "file" || b.variable_type === "env_var") v.variable_type = b.variable_type;
    for (const k of ["protected", "masked", "raw"] as const) {
      const x = boolParam(b[k]);
      if (x !== undefined) v[k] = x;
    }
    const scope = str(b.environment_scope);
    if (scope !== undefined) v.environment_scope = scope;
    if (b.description !== undefined) v.description = str(b.description) ?? null;
    res.json(variableJson(v));
  });

  both.delete(["/projects/:id/variables/:key", "/groups/:id/variables/:key"], (owner, req, res) => {
    const v = one(req, res, owner);
    if (!v) return;
    ctx.state.variables = all().filter((x) => x !== v);
    res.status(204).end();
  });
}
