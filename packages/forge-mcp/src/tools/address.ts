import { z } from "zod";
import type { ForgeApi } from "../forge/api.js";

/**
 * A tool that takes a project and an iid (an issue's, a merge request's, a work item's) or a
 * pipeline's or job's id also takes `url`: the object's web address as a person pastes it
 * (`https://gitlab.example.com/group/sub/project/-/merge_requests/3`, with or without a trailing
 * `/diffs`, `?tab=…` or `#note_…`). One schema fragment and one resolver for every such tool,
 * applied by the catalogue (./define.ts), so a tool added later gets it by taking those fields.
 *
 * The security model: a URL is read, never fetched. It must be on the forge this call goes to
 * (same scheme, host and port, under the forge's base path when GitLab is served below one); any
 * other address is refused, so a pasted link cannot steer the call to another forge, and its path
 * only ever becomes a project path and a number, which go to the forge as every project_id does
 * (through the project allow-list). Given with project_id or the id as well, both must name the
 * same object, or the call is refused rather than one silently winning.
 */

/** The id fields a URL can fill, and the kinds of web address (the segment after `/-/`) each takes. */
const KINDS: Record<string, { kinds: readonly string[]; noun: string }> = {
  issue_iid: { kinds: ["issues", "work_items"], noun: "an issue's" },
  incident_iid: { kinds: ["issues", "work_items"], noun: "an incident's" },
  iid: { kinds: ["work_items", "issues"], noun: "a work item's" },
  merge_request_iid: { kinds: ["merge_requests"], noun: "a merge request's" },
  pipeline_id: { kinds: ["pipelines"], noun: "a pipeline's" },
  job_id: { kinds: ["jobs"], noun: "a job's" },
};

/** The id field a URL fills for this input: one of KINDS, required beside a required project_id. */
export function addressedBy(input: z.ZodRawShape): string | undefined {
  const project = input.project_id as z.ZodType | undefined;
  if (!project || project.safeParse(undefined).success) return undefined;
  return Object.keys(KINDS).find((k) => {
    const field = input[k] as z.ZodType | undefined;
    return field !== undefined && !field.safeParse(undefined).success;
  });
}

// two words: on some ninety tools every byte counts (issue 39's budget); without project_id and the
// id required, a model reads them as the alternatives
const url = z.string().describe("Web URL");

/** The input with `url` beside project_id and the id, which become optional (one or the other). */
export function withUrl(input: z.ZodRawShape, key: string): z.ZodRawShape {
  // a project_id the default project made optional already keeps its description
  const optional = (f: z.ZodType) => (f.safeParse(undefined).success ? f : f.optional());
  return {
    ...input,
    project_id: optional(input.project_id as z.ZodType),
    [key]: optional(input[key] as z.ZodType),
    url: url.optional(),
  };
}

/** A URL the call cannot take (another host, another kind, disagreeing ids): refused, not run. */
export class AddressRefused extends Error {
  override name = "AddressRefused";
}

interface Address {
  project: string;
  kind: string;
  id: number;
}

/** The project path, kind and number a web URL names on the forge at `apiBase`. */
export function parseWebUrl(raw: string, apiBase: string): Address {
  let u: URL;
  try {
    u = new URL(raw.trim());
  } catch {
    throw new AddressRefused(`url ${JSON.stringify(raw)} is not a URL`);
  }
  const web = new URL(apiBase.replace(/\/api\/v4\/?$/, "/"));
  if (u.protocol !== web.protocol || u.host !== web.host)
    throw new AddressRefused(
      `url points at ${u.protocol}//${u.host}, not at the forge this server serves (${web.protocol}//${web.host}): refused`,
    );
  const root = web.pathname.replace(/\/?$/, "/");
  if (!u.pathname.startsWith(root))
    throw new AddressRefused(`url is outside the forge's base path ${root}: refused`);
  const m =
    /^(.+?)\/-\/(issues(?:\/incident)?|merge_requests|pipelines|jobs|work_items)\/(\d+)(?:\/.*)?$/.exec(
      u.pathname.slice(root.length),
    );
  if (!m)
    throw new AddressRefused("url names no issue, merge request, work item, pipeline or job of a project");
  const segments = m[1]!.split("/").map((s) => {
    try {
      return decodeURIComponent(s);
    } catch {
      return "";
    }
  });
  if (segments[0] === "groups")
    throw new AddressRefused("url is a group's; this tool takes a project's (group/project/-/…)");
  if (segments.length < 2 || segments.some((s) => !/^[\w.][\w.-]*$/.test(s) || /^\.\.?$/.test(s)))
    throw new AddressRefused("url's project path is not a group/project path");
  return { project: segments.join("/"), kind: m[2]!.replace(/\/incident$/, ""), id: Number(m[3]) };
}

/** The same project named twice: equal paths (any case, %2F as /), or a numeric id the path resolves to. */
async function sameProject(api: ForgeApi, given: string | number, path: string): Promise<boolean> {
  const g = String(given).replace(/%2F/gi, "/");
  if (g.toLowerCase() === path.toLowerCase()) return true;
  if (!/^\d+$/.test(g)) return false;
  return (await api.projectId(path)) === Number(g);
}

/**
 * The call's arguments with `url` read into project_id and `key` (and taken out): refused when the
 * URL is not the forge's, names another kind of object, or disagrees with ids given beside it.
 * Without a url, the arguments as given.
 */
export async function resolveAddress(
  api: ForgeApi,
  key: string,
  args: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const { url: raw, ...rest } = args;
  if (raw === undefined) return rest;
  const a = parseWebUrl(String(raw), api.base);
  const want = KINDS[key]!;
  if (!want.kinds.includes(a.kind))
    throw new AddressRefused(
      `url is ${a.kind.replace(/s$/, "").replace(/_/g, " ")} ${a.id}'s address; this tool takes ${want.noun}`,
    );
  if (rest[key] !== undefined && Number(rest[key]) !== a.id)
    throw new AddressRefused(
      `url names ${a.id} but ${key} is ${String(rest[key])}: give one, or make them agree`,
    );
  if (
    rest.project_id !== undefined &&
    !(await sameProject(api, rest.project_id as string | number, a.project))
  )
    throw new AddressRefused(
      `url names project ${a.project} but project_id is ${String(rest.project_id)}: give one, or make them agree`,
    );
  return { ...rest, project_id: a.project, [key]: a.id };
}

/** Without a url, project_id and the id must both be there (the schema lets either be left out). */
export function missingAddress(key: string, args: Record<string, unknown>): string | undefined {
  const absent = ["project_id", key].filter((k) => args[k] === undefined);
  return absent.length ? `Give url, or ${absent.join(" and ")}` : undefined;
}
