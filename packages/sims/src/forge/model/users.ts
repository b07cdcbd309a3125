import type { ForgeState, ForgeUser } from "./state.js";
import { userById } from "./state.js";

/** A user as GitLab embeds one in other objects (authors, assignees, members). */
export function basicUser(u: ForgeUser, origin: string) {
  return {
    id: u.id,
    username: u.username,
    name: u.name,
    state: u.state,
    locked: false,
    avatar_url: `${origin}/uploads/-/system/user/avatar/${u.id}/avatar.png`,
    web_url: `${origin}/${u.username}`,
  };
}

export function userRef(state: ForgeState, id: number | null, origin: string) {
  if (id === null) return null;
  const u = userById(state, id);
  return u ? basicUser(u, origin) : null;
}
