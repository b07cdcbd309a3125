import { findGroup, findProject } from "../model/access.js";
import { emptyMore, more, nextMoreId } from "../model/more-extras.js";
import { wikiSlug } from "../model/project-extras.js";
import type { ForgeState, Group, Project } from "../model/state.js";
import { check, list } from "./auth.js";

/**
 * `/_sim/seed` keys for model/more-extras.ts, by group or project path: `group_wiki` ({group,
 * title, content}), `iterations` ({group, title, start_date, due_date}), `hooks` ({project or
 * group, url, events: {issues_events: true, ...}, deliveries: [{trigger, response_status}]}),
 * `release_links` ({project, tag_name, name, url, direct_asset_path}), `tag_signatures` ({project,
 * tag_name, signature_type, verification_status}), `vulnerabilities` ({project, title, severity,
 * report_type, state}), `custom_fields` ({group (top level), name, field_type, options,
 * work_item_types}) and `dependency_proxy` ({group, enabled, blobs: [{file_name, size}]}).
 * `replace: true` empties them first.
 */
export function seedMore(state: ForgeState, body: Record<string, unknown>): void {
  if (body.replace === true) state.extras.more = { ...emptyMore(), seq: state.extras.more?.seq ?? 0 };
  const d = more(state);
  const now = state.clock.iso();
  const group = (x: Record<string, any>, where: string): Group => {
    const g = typeof x.group === "string" ? findGroup(state, x.group) : undefined;
    check(g, `${where}: group ${JSON.stringify(x.group)} does not exist`);
    return g;
  };
  const project = (x: Record<string, any>, where: string): Project => {
    const p = typeof x.project === "string" ? findProject(state, x.project) : undefined;
    check(p, `${where}: project ${JSON.stringify(x.project)} does not exist`);
    return p;
  };
  const text = (v: unknown, fallback: string) => (typeof v === "string" ? v : fallback);
  for (const w of list(body, "group_wiki")) {
    const g = group(w, "group_wiki[]");
    check(typeof w.title === "string" && w.title, "group_wiki[].title is required");
    d.groupWiki.push({
      group_id: g.id,
      slug: wikiSlug(w.title),
      title: w.title,
      content: text(w.content, ""),
      format: text(w.format, "markdown"),
    });
  }
  for (const i of list(body, "iterations")) {
    const g = group(i, "iterations[]");
    check(
      typeof i.start_date === "string" && typeof i.due_date === "string",
      "iterations[].start_date and due_date are required",
    );
    d.iterations.push({
      id: nextMoreId(state),
      iid: d.iterations.filter((x) => x.group_id === g.id).length + 1,
      group_id: g.id,
      title: typeof i.title === "string" ? i.title : null,
      description: typeof i.description === "string" ? i.description : null,
      start_date: i.start_date,
      due_date: i.due_date,
      created_at: now,
      updated_at: now,
    });
  }
  for (const h of list(body, "hooks")) {
    const owner = h.project !== undefined ? { project_id: project(h, "hooks[]").id, group_id: null } : null;
    const ids = owner ?? { project_id: null, group_id: group(h, "hooks[]").id };
    check(typeof h.url === "string" && h.url, "hooks[].url is required");
    const id = nextMoreId(state);
    d.hooks.push({
      id,
      ...ids,
      url: h.url,
      name: text(h.name, ""),
      description: text(h.description, ""),
      created_at: now,
      events: h.events && typeof h.events === "object" ? { ...h.events } : {},
      enable_ssl_verification: h.enable_ssl_verification !== false,
    });
    for (const e of Array.isArray(h.deliveries) ? h.deliveries : []) {
      const trigger = text(e.trigger, "push_hooks");
      const status = typeof e.response_status === "number" ? e.response_status : 200;
      d.hookEvents.push({
        id: nextMoreId(state),
        hook_id: id,
        trigger,
        url: h.url,
        request_headers: { "Content-Type": "application/json", "X-Gitlab-Event": trigger },
        request_data:
          e.request_data && typeof e.request_data === "object" ? e.request_data : { object_kind: trigger },
        response_headers: { "Content-Type": "text/plain" },
        response_body: text(e.response_body, status < 300 ? "ok" : "error"),
        response_status: status,
        execution_duration: typeof e.execution_duration === "number" ? e.execution_duration : 0.1,
        created_at: now,
      });
    }
  }
  for (const l of list(body, "release_links")) {
    const p = project(l, "release_links[]");
    check(
      typeof l.tag_name === "string" && typeof l.url === "string",
      "release_links[].tag_name and url are required",
    );
    d.releaseLinks.push({
      id: nextMoreId(state),
      project_id: p.id,
      tag_name: l.tag_name,
      name: text(l.name, l.url),
      url: l.url,
      direct_asset_path: text(l.direct_asset_path, `/${text(l.name, "asset")}`),
      link_type: text(l.link_type, "other"),
    });
  }
  for (const t of list(body, "tag_signatures")) {
    const p = project(t, "tag_signatures[]");
    check(
      typeof t.tag_name === "string" && p.repository.tags.has(t.tag_name),
      "tag_signatures[].tag_name must name a tag",
    );
    d.tagSignatures[`${p.id}:${t.tag_name}`] = {
      signature_type: t.signature_type === "PGP" || t.signature_type === "SSH" ? t.signature_type : "X509",
      verification_status: text(t.verification_status, "verified"),
    };
  }
  for (const v of list(body, "vulnerabilities")) {
    const p = project(v, "vulnerabilities[]");
    check(typeof v.title === "string" && v.title, "vulnerabilities[].title is required");
    d.vulnerabilities.push({
      id: nextMoreId(state),
      project_id: p.id,
      title: v.title,
      description: text(v.description, ""),
      severity: text(v.severity, "medium"),
      state: ["detected", "confirmed", "resolved", "dismissed"].includes(v.state) ? v.state : "detected",
      report_type: text(v.report_type, "sast"),
      dismissal_reason: null,
      detected_at: now,
      updated_at: now,
      notes: [],
    });
  }
  for (const f of list(body, "custom_fields")) {
    const g = group(f, "custom_fields[]");
    check(g.parent_id === null, "custom_fields[].group must be a top-level group");
    check(typeof f.name === "string" && f.name, "custom_fields[].name is required");
    const type = String(f.field_type ?? "TEXT").toUpperCase();
    check(
      ["SINGLE_SELECT", "MULTI_SELECT", "TEXT", "NUMBER"].includes(type),
      "custom_fields[].field_type is invalid",
    );
    d.customFields ??= [];
    d.customFields.push({
      id: nextMoreId(state),
      group_id: g.id,
      name: f.name,
      field_type: type as "TEXT",
      options: (Array.isArray(f.options) ? f.options : []).map((v: unknown) => ({
        id: nextMoreId(state),
        value: String(v),
      })),
      work_item_types: Array.isArray(f.work_item_types) ? f.work_item_types.map(String) : ["issue"],
    });
  }
  for (const x of list(body, "dependency_proxy")) {
    const g = group(x, "dependency_proxy[]");
    d.dependencyProxy = d.dependencyProxy.filter((r) => r.group_id !== g.id);
    d.dependencyProxy.push({
      group_id: g.id,
      enabled: x.enabled !== false,
      identity: null,
      secret_set: false,
      blobs: (Array.isArray(x.blobs) ? x.blobs : []).map((b: Record<string, unknown>) => ({
        id: nextMoreId(state),
        file_name: text(b.file_name, "sha256:0"),
        size: typeof b.size === "number" ? b.size : 0,
        created_at: now,
      })),
    });
  }
}
