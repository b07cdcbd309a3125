import type { Request, Response } from "express";
import type { SimContext } from "../../core/sim.js";
import { caller, loadProject, requireUser } from "../model/access.js";
import { findMr } from "../model/merge-requests.js";
import type { Noteable } from "../model/notes.js";
import type { AwardRow, ForgeState } from "../model/state.js";
import { userRef } from "../model/users.js";
import { forbidden, missing, notFound } from "../wire/answers.js";
import { paginate } from "../wire/paginate.js";
import { params, str } from "../wire/params.js";
import { type Routes, twins } from "../wire/router.js";
import { findIssue } from "./issues.js";

/**
 * Emoji reactions ("award emoji") on issues, merge requests and their notes, as GitLab's
 * award_emoji API serves them: list, get one, award (one of a name per user), and remove (only
 * the user who awarded it). Work items of a project share the issues' iids, so they are served here too.
 */

/** GitLab's emoji names: lower-case letters, digits, `_`, `+` and `-` (thumbsup, +1, e-mail). */
const EMOJI = /^[a-z0-9_+-]{1,64}$/;

function awardJson(state: ForgeState, a: AwardRow, origin: string) {
  return {
    id: a.id,
    name: a.name,
    user: userRef(state, a.user_id, origin),
    created_at: a.created_at,
    updated_at: a.created_at,
    awardable_id: a.awardable_id,
    awardable_type: a.awardable_type,
  };
}

export function awardEmojiRoutes(r: Routes, ctx: SimContext<ForgeState>): void {
  const awards = () => {
    ctx.state.awards ??= [];
    return ctx.state.awards;
  };

  type Segment = "issues" | "merge_requests";
  /** The awardable a request names: the issue/MR itself, or one of its notes. */
  const target = (segment: Segment, req: Request, res: Response) => {
    const label = segment === "issues" ? "Issue" : "Merge Request";
    const p = loadProject(ctx.state, req, res);
    if (!p) return null;
    const iid = Number(req.params.iid);
    const on: Noteable | undefined =
      segment === "issues"
        ? findIssue(ctx.state, p, iid, caller(res)?.user ?? null)
        : findMr(ctx.state, p, iid);
    if (!on) {
      notFound(res, label);
      return null;
    }
    if (req.params.note_id === undefined)
      return {
        type: (segment === "issues" ? "Issue" : "MergeRequest") as AwardRow["awardable_type"],
        id: on.id,
      };
    const noteId = Number(req.params.note_id);
    if (!on.discussions.some((d) => d.notes.some((n) => n.id === noteId))) {
      notFound(res, "Note");
      return null;
    }
    return { type: "Note" as const, id: noteId };
  };
  const of = (t: { type: string; id: number }) =>
    awards().filter((a) => a.awardable_type === t.type && a.awardable_id === t.id);

  // an issue's, a merge request's, and a note's on either: the awardable resolved once per request
  const awardable = twins(
    r,
    (["issues", "merge_requests", "issues", "merge_requests"] as const).map(
      (segment) => (req: Request, res: Response) => target(segment, req, res),
    ),
  );
  const LIST = [
    "/projects/:id/issues/:iid/award_emoji",
    "/projects/:id/merge_requests/:iid/award_emoji",
    "/projects/:id/issues/:iid/notes/:note_id/award_emoji",
    "/projects/:id/merge_requests/:iid/notes/:note_id/award_emoji",
  ];
  const ONE = [
    "/projects/:id/issues/:iid/award_emoji/:award_id",
    "/projects/:id/merge_requests/:iid/award_emoji/:award_id",
    "/projects/:id/issues/:iid/notes/:note_id/award_emoji/:award_id",
    "/projects/:id/merge_requests/:iid/notes/:note_id/award_emoji/:award_id",
  ];

  awardable.get(LIST, (t, req, res) => {
    res.json(paginate(req, res, ctx.origin, of(t)).map((a) => awardJson(ctx.state, a, ctx.origin)));
  });

  awardable.get(ONE, (t, req, res) => {
    const a = of(t).find((x) => String(x.id) === req.params.award_id);
    if (!a) return notFound(res, "Award Emoji");
    res.json(awardJson(ctx.state, a, ctx.origin));
  });

  // creating and removing one need a signed-in user before the awardable is looked up
  const mine = twins(
    r,
    (["issues", "merge_requests", "issues", "merge_requests"] as const).map(
      (segment) => (req: Request, res: Response) => {
        const me = requireUser(res);
        if (!me) return null;
        const t = target(segment, req, res);
        return t ? { me, t } : null;
      },
    ),
  );

  mine.post(LIST, ({ me, t }, req, res) => {
    const name = str(params(req).name)?.trim();
    if (!name) return missing(res, "name");
    if (!EMOJI.test(name))
      return void res.status(400).json({ message: { name: ["is not a valid emoji name"] } });
    if (of(t).some((a) => a.user_id === me.id && a.name === name))
      return void res.status(400).json({ message: { name: ["has already been taken"] } });
    const a: AwardRow = {
      id: ++ctx.state.seq.record,
      name,
      user_id: me.id,
      awardable_type: t.type,
      awardable_id: t.id,
      created_at: ctx.state.clock.iso(),
    };
    awards().push(a);
    res.status(201).json(awardJson(ctx.state, a, ctx.origin));
  });

  mine.delete(ONE, ({ me, t }, req, res) => {
    const a = of(t).find((x) => String(x.id) === req.params.award_id);
    if (!a) return notFound(res, "Award Emoji");
    // only the user who awarded it (or an administrator) may take it back
    if (a.user_id !== me.id && !me.admin) return forbidden(res);
    ctx.state.awards = awards().filter((x) => x !== a);
    res.status(204).end();
  });
}
