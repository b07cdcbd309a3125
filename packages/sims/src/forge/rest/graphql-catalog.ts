import { parseAllDocuments } from "yaml";
import { canReadProject, findProject, projectFullPath } from "../model/access.js";
import type { ForgeState, ForgeUser, Project } from "../model/state.js";

/**
 * The CI/CD catalog in the GraphQL subset (`ciCatalogResources`, `ciCatalogResource`): a project
 * is a catalog resource when its default branch holds components (`templates/<name>.yml` or
 * `templates/<name>/template.yml`), and it is published once it has a release; each release is a
 * version whose components (and their `spec: inputs`) are read at the release's tag.
 */

type Args = Record<string, unknown>;
type Node = { __typename: string; [field: string]: unknown };

const COMPONENT = /^templates\/([^/]+?)(?:\.ya?ml|\/template\.ya?ml)$/;

function components(files: Record<string, string>): Array<{ name: string; content: string }> {
  return Object.entries(files)
    .map(([path, content]) => ({ m: COMPONENT.exec(path), content }))
    .filter((x) => x.m)
    .map((x) => ({ name: x.m![1]!, content: x.content }))
    .sort((a, b) => (a.name < b.name ? -1 : 1));
}

/** A component's `spec: inputs`, from the first YAML document of its file. */
function inputs(content: string) {
  let spec: unknown;
  try {
    spec = parseAllDocuments(content)[0]?.toJS?.();
  } catch {
    return [];
  }
  const ins = ((spec as { spec?: { inputs?: Record<string, Record<string, unknown> | null> } })?.spec
    ?.inputs ?? {}) as Record<string, Record<string, unknown> | null>;
  return Object.entries(ins).map(([name, v]) => ({
    __typename: "CiInput",
    name,
    description: (v?.description as string | undefined) ?? null,
    type: String(v?.type ?? "string").toUpperCase(),
    required: v?.default === undefined,
    default: v?.default ?? null,
    options: Array.isArray(v?.options) ? v.options : null,
    regex: (v?.regex as string | undefined) ?? null,
  }));
}

/** A page of `rows` after the cursor `after` (an offset), `first` long (default 20, at most 100). */
function page<T>(rows: T[], args: Args, type: string, node: (x: T) => Node): Node {
  const first = typeof args.first === "number" ? Math.min(Math.max(args.first, 0), 100) : 20;
  const start = typeof args.after === "string" && /^\d+$/.test(args.after) ? Number(args.after) : 0;
  const slice = rows.slice(start, start + first);
  return {
    __typename: `${type}Connection`,
    count: rows.length,
    nodes: slice.map(node),
    pageInfo: {
      __typename: "PageInfo",
      hasNextPage: start + first < rows.length,
      endCursor: slice.length ? String(start + slice.length) : null,
    },
  };
}

export function catalogRoot(s: ForgeState, me: ForgeUser | null, origin: string) {
  const gid = (type: string, id: number) => `gid://gitlab/${type}/${id}`;
  const host = new URL(origin).host;
  const releasesOf = (p: Project) =>
    s.releases
      .filter((r) => r.project_id === p.id)
      .sort((a, b) => (a.released_at < b.released_at ? 1 : a.released_at > b.released_at ? -1 : 0));
  const isResource = (p: Project) => {
    const head = p.repository.branches.get(p.default_branch);
    const files = head ? p.repository.commits.get(head)?.files : undefined;
    return files !== undefined && components(files).length > 0 && releasesOf(p).length > 0;
  };
  const resource = (p: Project): Node => {
    const full = projectFullPath(s, p);
    const releases = releasesOf(p);
    return {
      __typename: "CiCatalogResource",
      id: gid("Ci::Catalog::Resource", p.id),
      name: p.name,
      description: p.description,
      fullPath: full,
      webPath: `/${full}`,
      icon: null,
      starCount: 0,
      topics: [],
      verificationLevel: "UNVERIFIED",
      visibilityLevel: p.visibility,
      latestReleasedAt: releases[0]?.released_at ?? null,
      last30DayUsageCount: 0,
      versions: (a: Args) =>
        page(releases, a, "CiCatalogResourceVersion", (r) => {
          const tag = p.repository.tags.get(r.tag_name);
          const files = (tag && p.repository.commits.get(tag.target)?.files) ?? {};
          const semver = /^v?(\d+)\.(\d+)\.(\d+)/.exec(r.tag_name);
          return {
            __typename: "CiCatalogResourceVersion",
            id: gid("Ci::Catalog::Resources::Version", p.id * 1000 + releases.indexOf(r)),
            name: r.tag_name,
            path: `/${full}/-/tags/${r.tag_name}`,
            createdAt: r.created_at,
            releasedAt: r.released_at,
            readme: files["README.md"] ?? null,
            semver: semver
              ? {
                  __typename: "CiCatalogResourceVersionSemver",
                  major: +semver[1]!,
                  minor: +semver[2]!,
                  patch: +semver[3]!,
                }
              : null,
            components: (ca: Args) =>
              page(components(files), ca, "CiCatalogResourceComponent", (c) => ({
                __typename: "CiCatalogResourceComponent",
                id: gid("Ci::Catalog::Resources::Component", p.id * 1000 + components(files).indexOf(c)),
                name: c.name,
                description: null,
                includePath: `${host}/${full}/${c.name}@${r.tag_name.replace(/^v/, "")}`,
                last30DayUsageCount: 0,
                inputs: inputs(c.content),
              })),
          };
        }),
    };
  };
  const visible = () => s.projects.filter((p) => canReadProject(s, me, p) && isResource(p));
  return {
    ciCatalogResources: (a: Args) => {
      const search = typeof a.search === "string" ? a.search.toLowerCase() : undefined;
      const topics = Array.isArray(a.topics) ? a.topics : [];
      const rows = visible()
        .filter((p) => (search ? `${p.name} ${p.description}`.toLowerCase().includes(search) : true))
        // the simulated projects have no topics; a verification level other than UNVERIFIED matches none
        .filter(() => topics.length === 0)
        .filter(
          () =>
            a.verificationLevel === undefined ||
            a.verificationLevel === null ||
            a.verificationLevel === "UNVERIFIED",
        )
        .sort((x, y) => (String(a.sort).startsWith("NAME") ? x.name.localeCompare(y.name) : y.id - x.id));
      if (a.sort === "NAME_DESC") rows.reverse();
      return page(rows, a, "CiCatalogResource", resource);
    },
    ciCatalogResource: (a: Args) => {
      const byId =
        typeof a.id === "string" ? /^gid:\/\/gitlab\/Ci::Catalog::Resource\/(\d+)$/.exec(a.id) : null;
      const p = byId
        ? s.projects.find((x) => x.id === Number(byId[1]))
        : typeof a.fullPath === "string"
          ? findProject(s, a.fullPath)
          : undefined;
      return p && canReadProject(s, me, p) && isResource(p) ? resource(p) : null;
    },
  };
}
