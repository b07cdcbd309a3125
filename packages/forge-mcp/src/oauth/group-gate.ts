import { ForgeApi } from "../forge/api.js";
import { STYLE } from "./consent.js";

/**
 * GITLAB_OAUTH_ALLOWED_GROUPS: only members of one of the listed groups, or of any of their
 * subgroups, get a token from this server or use one at /mcp. Asked where tokens are issued
 * (OAuthService: the proxy callback, and every token the forge hands out through /token:
 * passthrough codes and refreshes), and again for every token /mcp accepts (the token verifier,
 * src/forge/verify.ts, whose cache keeps the verdict with the token): a token the forge issued to
 * our application without this server (the forge's own authorize with the public app id, another
 * deployment sharing the application) meets the same gate. The look-up is made with the user's
 * own token: `GET /groups?min_access_level=10` lists the groups the user is a
 * member of (directly or through a parent group). Matching is on the group's full path, in any
 * case. A forge that refuses the look-up refuses the sign-in (fail closed).
 */

const PAGES = 10;

export class GroupGate {
  private readonly allowed: string[];

  constructor(
    groups: string[],
    private readonly apiUrl: string,
    private readonly timeoutMs: number,
  ) {
    this.allowed = groups.map((g) => g.toLowerCase());
  }

  /** Whether the token's user is a member of an allowed group (or of a subgroup of one). */
  async admits(token: string): Promise<boolean> {
    const api = new ForgeApi(this.apiUrl, token, this.timeoutMs);
    for (let page = 1; page <= PAGES; page++) {
      const r = await api.get("/groups", { min_access_level: 10, per_page: 100, page });
      const groups = Array.isArray(r.data) ? (r.data as Array<{ full_path?: unknown }>) : [];
      for (const g of groups) {
        const path = typeof g.full_path === "string" ? g.full_path.toLowerCase() : "";
        if (this.allowed.some((a) => path === a || path.startsWith(`${a}/`))) return true;
      }
      if (!r.page?.next_page || groups.length === 0) return false;
    }
    return false;
  }
}

/** What the browser shows at /callback when the user is in none of the groups. */
export const GROUP_REFUSED_STATUS = 403;

export function groupRefusedPage(): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Access denied</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><style>${STYLE}</style></head>
<body>
<h1>Your account may not use this server</h1>
<p>You signed in at the forge, but this server only admits members of the groups its operator
chose, and your account is a member of none of them. No access was granted to the application,
and the token the forge issued for this sign-in has been revoked.</p>
<p>If you think you should have access, ask the people who run this server to add you to one of
their groups, then sign in again from your application.</p>
</body></html>`;
}
