import type { SimContext } from "../../core/sim.js";
import { caller, requireUser } from "../model/access.js";
import type { ForgeState, ForgeUser } from "../model/state.js";
import { userById } from "../model/state.js";
import { basicUser } from "../model/users.js";
import { notFound } from "../wire/answers.js";
import { paginate } from "../wire/paginate.js";
import { boolParam } from "../wire/params.js";
import type { Routes } from "../wire/router.js";

export const FORGE_VERSION = "17.6.2";

// Object.assign rather than `{ ...basicUser(), more }`: on Node 20's V8 every field written after a
// spread cost ~1.5 µs, which made GET /user spend ~40 µs here (bench/results/sims.md). Same fields,
// same order.
function publicUser(u: ForgeUser, origin: string) {
  return Object.assign(basicUser(u, origin), {
    created_at: u.created_at,
    bio: u.bio,
    location: "",
    public_email: null,
    linkedin: "",
    twitter: "",
    discord: "",
    website_url: "",
    organization: "",
    job_title: "",
    pronouns: null,
    bot: false,
    work_information: null,
    followers: 0,
    following: 0,
    local_time: null,
  });
}

/** `GET /user`: the public profile plus the fields only the owner sees. */
function currentUser(u: ForgeUser, origin: string) {
  return Object.assign(publicUser(u, origin), {
    last_sign_in_at: u.created_at,
    confirmed_at: u.created_at,
    last_activity_on: u.created_at.slice(0, 10),
    email: u.email,
    theme_id: 3,
    color_scheme_id: 1,
    projects_limit: 100000,
    current_sign_in_at: u.created_at,
    identities: [],
    can_create_group: true,
    can_create_project: true,
    two_factor_enabled: false,
    external: false,
    private_profile: false,
    commit_email: u.email,
    is_admin: u.admin,
  });
}

export function userRoutes(r: Routes, ctx: SimContext<ForgeState>): void {
  r.get("/version", (_req, res) => {
    if (!requireUser(res)) return;
    res.json({ version: FORGE_VERSION, revision: "5imf0rg3", kas: { enabled: false }, enterprise: false });
  });

  r.get("/user", (_req, res) => {
    const me = requireUser(res);
    if (!me) return;
    res.json(currentUser(me, ctx.origin));
  });

  // How a client validates a personal access token (OAuth tokens use /oauth/token/info instead).
  r.get("/personal_access_tokens/self", (_req, res) => {
    const me = requireUser(res);
    if (!me) return;
    const pat = caller(res)?.pat;
    if (!pat) return notFound(res);
    res.json({
      id: pat.id,
      name: pat.name,
      revoked: pat.revoked,
      created_at: pat.created_at,
      description: null,
      scopes: pat.scopes,
      user_id: pat.user_id,
      last_used_at: ctx.clock.iso(),
      active: true,
      expires_at: pat.expires_at,
    });
  });

  r.get("/users", (req, res) => {
    const q = req.query as Record<string, unknown>;
    let users = ctx.state.users;
    if (typeof q.username === "string") {
      const wanted = q.username.toLowerCase();
      users = users.filter((u) => u.username.toLowerCase() === wanted);
    }
    if (typeof q.search === "string" && q.search) {
      const term = q.search.toLowerCase();
      users = users.filter(
        (u) =>
          u.username.toLowerCase().includes(term) ||
          u.name.toLowerCase().includes(term) ||
          (caller(res) !== null && u.email.toLowerCase() === term),
      );
    }
    if (boolParam(q.active) === true) users = users.filter((u) => u.state === "active");
    if (boolParam(q.blocked) === true) users = users.filter((u) => u.state === "blocked");
    res.json(paginate(req, res, ctx.origin, users).map((u) => basicUser(u, ctx.origin)));
  });

  r.get("/users/:id", (req, res) => {
    const u = userById(ctx.state, Number(req.params.id));
    if (!u) return notFound(res, "User");
    res.json(publicUser(u, ctx.origin));
  });
}
