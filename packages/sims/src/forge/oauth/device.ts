import type { Express, Response } from "express";
import type { SimContext } from "../../core/sim.js";
import type { ForgeState, OAuthApplication, OAuthToken } from "../model/state.js";
import { secretValue, userByName } from "../model/state.js";
import { authenticateClient } from "./client-auth.js";
import { DEFAULT_SCOPES, issueToken, KNOWN_SCOPES, parseScopes } from "./tokens.js";

/**
 * The device authorization grant (RFC 8628, GitLab 17.1+): a device asks for a code, its user
 * approves it in a browser at /oauth/device, and the device polls /oauth/token meanwhile.
 */
export const DEVICE_GRANT_TYPE = "urn:ietf:params:oauth:grant-type:device_code";
const DEVICE_CODE_TTL_SECONDS = 300;
const DEVICE_POLL_INTERVAL_SECONDS = 5;

const DEVICE_MESSAGES = {
  authorization_pending:
    "The authorization request is still pending as the end user hasn't yet completed the user-interaction steps.",
  slow_down:
    "The authorization request is still pending and polling should continue, but the interval must be increased.",
  expired_token: 'The "device_code" has expired, and the device authorization session has concluded.',
  access_denied: "The end user denied the authorization request.",
  invalid_grant:
    "The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.",
} as const;

type Params = Record<string, string>;

function stringParams(source: unknown): Params {
  const out: Params = {};
  if (source && typeof source === "object") {
    for (const [k, v] of Object.entries(source)) if (typeof v === "string") out[k] = v;
  }
  return out;
}

/** Polls for a device grant's tokens; answers them once approved, or the RFC 8628 error. */
export function exchangeDevice(
  state: ForgeState,
  app: OAuthApplication,
  body: Params,
): { token: OAuthToken } | { error: keyof typeof DEVICE_MESSAGES | "invalid_request"; description: string } {
  if (!body.device_code)
    return { error: "invalid_request", description: "Missing required parameter: device_code." };
  const grant = state.devices.get(body.device_code);
  if (!grant || grant.app_uid !== app.uid || grant.status === "used") {
    return { error: "invalid_grant", description: DEVICE_MESSAGES.invalid_grant };
  }
  const now = state.clock.now();
  if (now >= grant.expires_at_ms)
    return { error: "expired_token", description: DEVICE_MESSAGES.expired_token };
  if (grant.status === "denied")
    return { error: "access_denied", description: DEVICE_MESSAGES.access_denied };
  const tooSoon = grant.last_poll_ms !== null && now - grant.last_poll_ms < grant.interval * 1000;
  grant.last_poll_ms = now;
  if (grant.status === "pending") {
    return tooSoon
      ? { error: "slow_down", description: DEVICE_MESSAGES.slow_down }
      : { error: "authorization_pending", description: DEVICE_MESSAGES.authorization_pending };
  }
  grant.status = "used";
  return { token: issueToken(state, app, grant.user_id!, grant.scopes) };
}

function page(res: Response, status: number, title: string, body: string): void {
  const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  res
    .status(status)
    .type("html")
    .send(
      `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>${esc(title)} · GitLab (simulated)</title></head><body><main><h1>${esc(title)}</h1>${body}</main></body></html>\n`,
    );
}

export function deviceRoutes(app: Express, ctx: SimContext<ForgeState>): void {
  app.post("/oauth/authorize_device", (req, res) => {
    const state = ctx.state;
    const body = stringParams(req.body);
    const client = authenticateClient(state, req, body);
    if (!client) {
      return void res.status(401).json({
        error: "invalid_client",
        error_description:
          "Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.",
      });
    }
    const scopes = body.scope?.trim() ? parseScopes(body.scope) : DEFAULT_SCOPES;
    if (scopes.length === 0 || scopes.some((s) => !KNOWN_SCOPES.has(s) || !client.scopes.includes(s))) {
      return void res.status(400).json({
        error: "invalid_scope",
        error_description: "The requested scope is invalid, unknown, or malformed.",
      });
    }
    const now = state.clock.now();
    const userCode = state.ids.next("", 8).toUpperCase();
    const grant = {
      device_code: secretValue(state),
      user_code: userCode,
      app_uid: client.uid,
      scopes,
      created_at_ms: now,
      expires_at_ms: now + DEVICE_CODE_TTL_SECONDS * 1000,
      interval: DEVICE_POLL_INTERVAL_SECONDS,
      last_poll_ms: null,
      status: "pending" as const,
      user_id: null,
    };
    state.devices.set(grant.device_code, grant);
    res.setHeader("Cache-Control", "no-store");
    res.json({
      device_code: grant.device_code,
      user_code: userCode,
      verification_uri: `${ctx.origin}/oauth/device`,
      verification_uri_complete: `${ctx.origin}/oauth/device?user_code=${userCode}`,
      expires_in: DEVICE_CODE_TTL_SECONDS,
      interval: DEVICE_POLL_INTERVAL_SECONDS,
    });
  });

  const findPending = (userCode: string | undefined) => {
    const state = ctx.state;
    const code = userCode?.trim().toUpperCase();
    const grant = [...state.devices.values()].find((g) => g.user_code === code);
    if (grant?.status !== "pending" || state.clock.now() >= grant.expires_at_ms) return undefined;
    return grant;
  };

  const decide = (res: Response, params: Params) => {
    const state = ctx.state;
    const grant = findPending(params.user_code);
    if (!grant) return page(res, 400, "Invalid code", "<p>The code is invalid, expired or already used.</p>");
    const user = userByName(state, params.username ?? state.settings.signedInUser);
    if (!user) return void res.redirect(302, `${ctx.origin}/users/sign_in`);
    if (params.decision === "deny") {
      grant.status = "denied";
      return page(res, 200, "Device access denied", "<p>The device was not authorized.</p>");
    }
    if (!state.settings.autoApprove && params.decision !== "approve") {
      const app = state.applications.find((a) => a.uid === grant.app_uid);
      const form = (decision: string, label: string) =>
        `<form method="post" action="/oauth/device"><input type="hidden" name="user_code" value="${grant.user_code}"><input type="hidden" name="username" value="${user.username}"><button type="submit" name="decision" value="${decision}">${label}</button></form>`;
      return page(
        res,
        200,
        `Authorize ${app?.name ?? grant.app_uid} on a device?`,
        `<p>Signed in as <strong class="signed-in-user">${user.username}</strong>. Scopes: ${grant.scopes.join(" ")}</p>${form("approve", "Authorize")}${form("deny", "Deny")}`,
      );
    }
    grant.status = "approved";
    grant.user_id = user.id;
    page(res, 200, "Device authorized", "<p>You can close this window and return to your device.</p>");
  };

  app.get("/oauth/device", (req, res) => {
    const q = stringParams(req.query);
    if (!q.user_code) {
      return page(
        res,
        200,
        "Connect a device",
        '<form method="get" action="/oauth/device"><input name="user_code" placeholder="Device code"><button type="submit">Submit</button></form>',
      );
    }
    decide(res, q);
  });
  app.post("/oauth/device", (req, res) => decide(res, stringParams(req.body)));
}
