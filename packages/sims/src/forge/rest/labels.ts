import type { Request, Response } from "express";
import type { SimContext } from "../../core/sim.js";
import { loadProject } from "../model/access.js";
import type { LabelRow } from "../model/state.js";
import { ACCESS, type ForgeState, type Project } from "../model/state.js";
import { missing, notFound } from "../wire/answers.js";
import { paginate } from "../wire/paginate.js";
import { params, str } from "../wire/params.js";
import type { Routes } from "../wire/router.js";

/** GitLab's label colours: #RRGGBB or a CSS colour name. */
const COLOR = /^#[0-9A-Fa-f]{6}$|^[a-z]+$/;

/**
 * A project's labels. Naming a label on an issue or merge request creates it in GitLab, so every
 * name in use is a stored label with a real id that later reads by id or name find.
 */
export function projectLabels(state: ForgeState, p: Project): LabelRow[] {
  const stored = state.labels.filter((l) => l.project_id === p.id);
  const known = new Set(stored.map((l) => l.name));
  const used = [...state.issues, ...state.mergeRequests].filter((i) => i.project_id === p.id);
  for (const name of used.flatMap((i) => i.labels)) {
    if (known.has(name)) continue;
    known.add(name);
    const hue = [...name].reduce((h, c) => (h * 31 + c.charCodeAt(0)) % 0xffffff, 7);
    const row: LabelRow = {
      id: ++state.seq.record,
      project_id: p.id,
      name,
      color: `#${hue.toString(16).padStart(6, "0")}`,
      description: null,
      priority: null,
    };
    state.labels.push(row);
    stored.push(row);
  }
  return stored;
}

export function labelJson(state: ForgeState, p: Project, l: LabelRow) {
  const issues = state.issues.filter((i) => i.project_id === p.id && i.labels.includes(l.name));
  const mrs = state.mergeRequests.filter((m) => m.project_id === p.id && m.labels.includes(l.name));
  return {
    id: l.id,
    name: l.name,
    color: l.color,
    text_color: "#FFFFFF",
    description: l.description,
    description_html: l.description ?? "",
    open_issues_count: issues.filter((i) => i.state === "opened").length,
    closed_issues_count: issues.filter((i) => i.state === "closed").length,
    open_merge_requests_count: mrs.filter((m) => m.state === "opened").length,
    subscribed: false,
    priority: l.priority,
    is_project_label: true,
  };
}

export function labelRoutes(r: Routes, ctx: SimContext<ForgeState>): void {
  const d = () => ctx.state;
  const findLabel = (p: Project, ref: string) =>
    projectLabels(ctx.state, p).find((l) => String(l.id) === ref || l.name === ref);

  r.get("/projects/:id/labels", (req, res) => {
    const p = loadProject(ctx.state, req, res);
    if (!p) return;
    const q = req.query as Record<string, unknown>;
    const search = str(q.search)?.toLowerCase();
    const rows = projectLabels(ctx.state, p)
      .filter((l) => !search || l.name.toLowerCase().includes(search))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    res.json(paginate(req, res, ctx.origin, rows).map((l) => labelJson(ctx.state, p, l)));
  });

  r.get("/projects/:id/labels/:label_id", (req, res) => {
    const p = loadProject(ctx.state, req, res);
    if (!p) return;
    const l = findLabel(p, String(req.params.label_id));
    if (!l) return notFound(res, "Label");
    res.json(labelJson(ctx.state, p, l));
  });

  r.post("/projects/:id/labels", (req, res) => {
    const p = loadProject(ctx.state, req, res, ACCESS.developer);
    if (!p) return;
    const b = params(req);
    const name = str(b.name)?.trim();
    const color = str(b.color);
    if (!name || !color) return missing(res, ...(!name ? ["name"] : []), ...(!color ? ["color"] : []));
    if (!COLOR.test(color))
      return void res.status(400).json({ message: { color: ["must be a valid color code"] } });
    if (findLabel(p, name)) return void res.status(409).json({ message: "Label already exists" });
    const row: LabelRow = {
      id: ++d().seq.record,
      project_id: p.id,
      name,
      color,
      description: str(b.description) ?? null,
      priority: b.priority === undefined || b.priority === null ? null : Number(b.priority),
    };
    d().labels.push(row);
    res.status(201).json(labelJson(ctx.state, p, row));
  });

  // The label named in the path, or (the older form python-gitlab's save() uses) `name` in the body.
  const labelRef = (req: Request, res: Response): string | undefined => {
    const ref = str(req.params.label_id) ?? str(params(req).name) ?? str(params(req).label_id);
    if (ref === undefined) missing(res, "label_id");
    return ref;
  };

  /** The label a change names, for developers; null when answered (403, 400, 404). */
  const labelToChange = (req: Request, res: Response) => {
    const p = loadProject(ctx.state, req, res, ACCESS.developer);
    if (!p) return null;
    const ref = labelRef(req, res);
    if (ref === undefined) return null;
    const l = findLabel(p, ref);
    if (!l) {
      notFound(res, "Label");
      return null;
    }
    return { p, l };
  };

  const updateLabel = (req: Request, res: Response) => {
    const found = labelToChange(req, res);
    if (!found) return;
    const { p, l } = found;
    const b = params(req);
    if (
      b.new_name === undefined &&
      b.color === undefined &&
      b.description === undefined &&
      b.priority === undefined
    )
      return void res.status(400).json({
        error: "new_name, color, description, priority are missing, at least one parameter must be provided",
      });
    if (b.color !== undefined && !COLOR.test(String(b.color)))
      return void res.status(400).json({ message: { color: ["must be a valid color code"] } });
    const newName = str(b.new_name);
    if (newName && newName !== l.name) {
      if (findLabel(p, newName)) return void res.status(409).json({ message: "Label already exists" });
      // Renaming a label renames it wherever it is used.
      for (const x of [...ctx.state.issues, ...ctx.state.mergeRequests])
        if (x.project_id === p.id) x.labels = x.labels.map((n) => (n === l.name ? newName : n));
      l.name = newName;
    }
    if (b.color !== undefined) l.color = String(b.color);
    if (b.description !== undefined) l.description = str(b.description) ?? null;
    if (b.priority !== undefined) l.priority = b.priority === null ? null : Number(b.priority);
    res.json(labelJson(ctx.state, p, l));
  };
  r.put("/projects/:id/labels/:label_id", updateLabel);
  r.put("/projects/:id/labels", updateLabel);

  const deleteLabel = (req: Request, res: Response) => {
    const found = labelToChange(req, res);
    if (!found) return;
    const { p, l } = found;
    d().labels = d().labels.filter((x) => x !== l);
    for (const x of [...ctx.state.issues, ...ctx.state.mergeRequests])
      if (x.project_id === p.id) x.labels = x.labels.filter((n) => n !== l.name);
    res.status(204).end();
  };
  r.delete("/projects/:id/labels/:label_id", deleteLabel);
  r.delete("/projects/:id/labels", deleteLabel);
}
