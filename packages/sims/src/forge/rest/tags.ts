import type { SimContext } from "../../core/sim.js";
import { loadProject, projectFullPath, requireUser } from "../model/access.js";
import { commitJson, resolveRef } from "../model/repo.js";
import { validBranchName } from "../model/repo-write.js";
import type { ForgeState, Project, Tag } from "../model/state.js";
import { ACCESS } from "../model/state.js";
import { missing, notFound } from "../wire/answers.js";
import { paginate } from "../wire/paginate.js";
import { params, str } from "../wire/params.js";
import type { Routes } from "../wire/router.js";

function tagJson(state: ForgeState, project: Project, t: Tag, origin: string) {
  const commit = project.repository.commits.get(t.target)!;
  return {
    name: t.name,
    message: t.message ?? "",
    target: t.target,
    commit: commitJson(commit, origin, projectFullPath(state, project)),
    release: null,
    protected: false,
    created_at: t.message === null ? null : t.created_at,
  };
}

/** Version-aware comparison (`v1.10.0` after `v1.9.0`), as GitLab's `order_by=version`. */
function compareVersions(a: string, b: string): number {
  return a.localeCompare(b, "en", { numeric: true });
}

export function tagRoutes(r: Routes, ctx: SimContext<ForgeState>): void {
  r.get("/projects/:id/repository/tags", (req, res) => {
    const p = loadProject(ctx.state, req, res);
    if (!p) return;
    const q = req.query as Record<string, unknown>;
    let tags = [...p.repository.tags.values()];
    const search = str(q.search);
    if (search)
      tags = tags.filter((t) => t.name.toLowerCase().includes(search.replace(/^\^|\$$/g, "").toLowerCase()));
    const dir = q.sort === "asc" ? 1 : -1;
    const updated = (t: Tag) => t.created_at || p.repository.commits.get(t.target)?.created_at || "";
    tags.sort((a, b) => {
      if (q.order_by === "name") return a.name.localeCompare(b.name) * dir;
      if (q.order_by === "version") return compareVersions(a.name, b.name) * dir;
      return (
        (updated(a) < updated(b) ? -1 : updated(a) > updated(b) ? 1 : a.name.localeCompare(b.name)) * dir
      );
    });
    res.json(paginate(req, res, ctx.origin, tags).map((t) => tagJson(ctx.state, p, t, ctx.origin)));
  });

  r.get("/projects/:id/repository/tags/:tag_name", (req, res) => {
    const p = loadProject(ctx.state, req, res);
    if (!p) return;
    const tag = p.repository.tags.get(String(req.params.tag_name));
    if (!tag) return notFound(res, "Tag");
    res.json(tagJson(ctx.state, p, tag, ctx.origin));
  });

  r.post("/projects/:id/repository/tags", (req, res) => {
    const body = params(req);
    const absent = ["tag_name", "ref"].filter((k) => !str(body[k]));
    if (absent.length) return missing(res, ...absent);
    if (!requireUser(res)) return;
    const p = loadProject(ctx.state, req, res, ACCESS.developer);
    if (!p) return;
    const name = str(body.tag_name)!;
    if (!validBranchName(name)) return void res.status(400).json({ message: "Tag name invalid" });
    if (p.repository.tags.has(name))
      return void res.status(400).json({ message: `Tag ${name} already exists` });
    const target = resolveRef(p.repository, str(body.ref));
    if (!target) return void res.status(400).json({ message: `Target ${body.ref} is invalid` });
    const message = str(body.message);
    const tag: Tag = { name, target: target.id, message: message ?? null, created_at: ctx.state.clock.iso() };
    p.repository.tags.set(name, tag);
    res.status(201).json(tagJson(ctx.state, p, tag, ctx.origin));
  });

  r.delete("/projects/:id/repository/tags/:tag_name", (req, res) => {
    if (!requireUser(res)) return;
    const p = loadProject(ctx.state, req, res, ACCESS.developer);
    if (!p) return;
    if (!p.repository.tags.delete(String(req.params.tag_name))) return notFound(res, "Tag");
    res.status(204).end();
  });

  // a tag's signature (X.509, GPG or SSH); an unsigned tag is 404
  r.get("/projects/:id/repository/tags/:tag_name/signature", (req, res) => {
    const p = loadProject(ctx.state, req, res);
    if (!p) return;
    const name = String(req.params.tag_name);
    if (!p.repository.tags.has(name)) return notFound(res, "Tag");
    const sig = ctx.state.tagSignatures[`${p.id}:${name}`];
    if (!sig) return notFound(res, "Signature");
    const base = { signature_type: sig.signature_type, verification_status: sig.verification_status };
    if (sig.signature_type === "X509")
      return void res.json({
        ...base,
        x509_certificate: {
          id: 1,
          subject: "CN=gitlab@example.org,OU=Example,O=World",
          subject_key_identifier: "BC:BC:BC:BC:BC:BC:BC:BC:BC:BC:BC:BC:BC:BC:BC:BC:BC:BC:BC:BC",
          email: "gitlab@example.org",
          serial_number: 1234567890,
          certificate_status: "good",
          x509_issuer: {
            id: 1,
            subject: "CN=PKI,OU=Example,O=World",
            subject_key_identifier: "AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB",
            crl_url: "http://example.com/pki.crl",
          },
        },
      });
    res.json({
      ...base,
      gpg_key_id: 1,
      gpg_key_primary_keyid: "8254AAB3FBD54AC9",
      gpg_key_user_name: "John Doe",
    });
  });
}
