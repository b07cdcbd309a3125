import { resolveRef } from "../model/repo.js";
import { userById, userByName } from "../model/state.js";
import { check, ownedRows, projectAt, projectPath, type RecordKind, text } from "./records.js";

/**
 * `/_sim/seed` keys for releases, by project path: `releases` ({project, tag_name, ref? (creates
 * the tag), name?, description?, milestones?, author?, created_at?, released_at?}),
 * `release_links` ({project, tag_name, name, url, direct_asset_path?, link_type?}) and
 * `tag_signatures` ({project, tag_name, signature_type, verification_status}), dumped in those shapes.
 */
export const releases: RecordKind = {
  key: "releases",
  seed(state, rows) {
    const now = state.clock.iso();
    for (const r of rows) {
      const p = projectAt(state, r, "releases[]");
      check(typeof r.tag_name === "string" && r.tag_name, "releases[].tag_name is required");
      if (!p.repository.tags.has(r.tag_name)) {
        const c = typeof r.ref === "string" ? resolveRef(p.repository, r.ref) : undefined;
        check(c, `releases[]: tag ${r.tag_name} does not exist and no valid ref was given`);
        p.repository.tags.set(r.tag_name, { name: r.tag_name, target: c.id, message: null, created_at: now });
      }
      const author = typeof r.author === "string" ? userByName(state, r.author) : undefined;
      state.releases.push({
        project_id: p.id,
        tag_name: r.tag_name,
        name: text(r.name, r.tag_name),
        description: text(r.description, ""),
        author_id: author?.id ?? p.creator_id,
        milestones: Array.isArray(r.milestones) ? r.milestones.map(String) : [],
        created_at: text(r.created_at, now),
        released_at: text(r.released_at, now),
      });
    }
  },
  dump: (state) =>
    state.releases.map(({ project_id, author_id, ...r }) => ({
      project: projectPath(state, project_id),
      author: userById(state, author_id)?.username ?? null,
      ...r,
    })),
  reset(state) {
    state.releases = [];
  },
};

export const releaseLinks = ownedRows({
  key: "release_links",
  field: "releaseLinks",
  owner: "project",
  series: "record2",
  build(_state, l, project_id) {
    check(
      typeof l.tag_name === "string" && typeof l.url === "string",
      "release_links[].tag_name and url are required",
    );
    return {
      project_id,
      tag_name: l.tag_name,
      name: text(l.name, l.url),
      url: l.url,
      direct_asset_path: text(l.direct_asset_path, `/${text(l.name, "asset")}`),
      link_type: text(l.link_type, "other"),
    };
  },
});

export const tagSignatures: RecordKind = {
  key: "tag_signatures",
  seed(state, rows) {
    for (const t of rows) {
      const p = projectAt(state, t, "tag_signatures[]");
      check(
        typeof t.tag_name === "string" && p.repository.tags.has(t.tag_name),
        "tag_signatures[].tag_name must name a tag",
      );
      state.tagSignatures[`${p.id}:${t.tag_name}`] = {
        signature_type: t.signature_type === "PGP" || t.signature_type === "SSH" ? t.signature_type : "X509",
        verification_status: text(t.verification_status, "verified"),
      };
    }
  },
  dump: (state) =>
    Object.entries(state.tagSignatures).map(([key, sig]) => {
      const at = key.indexOf(":");
      return { project: projectPath(state, Number(key.slice(0, at))), tag_name: key.slice(at + 1), ...sig };
    }),
  reset(state) {
    state.tagSignatures = {};
  },
};
