import { str } from "../wire/params.js";

/** Wiki slugs as GitLab derives them from titles: spaces become dashes, the rest kept. */
export function wikiSlug(title: string): string {
  return title.trim().replace(/\s+/g, "-");
}

/** A wiki page as GitLab answers it, a project's or a group's; `content` only where asked for. */
export function wikiJson(
  w: { slug: string; title: string; content: string; format: string },
  content: boolean,
) {
  return {
    ...(content ? { content: w.content } : {}),
    format: w.format,
    slug: w.slug,
    title: w.title,
    encoding: "UTF-8",
  };
}

/**
 * A new wiki page from a create body (`POST …/wikis`, a project's or a group's): its fields, or
 * the body's missing parameters, or GitLab's 400 message when a page already has the title's slug.
 */
export function newWikiPage(
  body: Record<string, unknown>,
  exists: (slug: string) => boolean,
):
  | { page: { slug: string; title: string; content: string; format: string } }
  | { missing: string[] }
  | { error: string } {
  const title = str(body.title)?.trim();
  const content = str(body.content);
  if (!title || content === undefined)
    return { missing: [...(!title ? ["title"] : []), ...(content === undefined ? ["content"] : [])] };
  const slug = wikiSlug(title);
  if (exists(slug)) return { error: "Duplicate page: A page with that title already exists" };
  return { page: { slug, title, content, format: str(body.format) ?? "markdown" } };
}

/**
 * A wiki page's edit (`PUT …/wikis/:slug`, a project's or a group's): applies the body's title
 * (which renames the slug), content and format, or answers GitLab's 400 message when the body
 * has none of them (nothing applied then).
 */
export function editWikiPage(
  page: { slug: string; title: string; content: string; format: string },
  body: Record<string, unknown>,
): string | undefined {
  if (body.title === undefined && body.content === undefined && body.format === undefined)
    return "content, title, format are missing, at least one parameter must be provided";
  if (typeof body.title === "string" && body.title.trim()) {
    page.title = body.title.trim();
    page.slug = wikiSlug(page.title);
  }
  if (typeof body.content === "string") page.content = body.content;
  if (typeof body.format === "string") page.format = body.format;
  return undefined;
}
