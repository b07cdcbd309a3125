import type { Express, Request, Response } from "express";
import type { SimContext } from "../../core/sim.js";
import type { ForgeState } from "../model/state.js";
import { userById } from "../model/state.js";
import { jwks } from "./id-token.js";
import { KNOWN_SCOPES, oauthExpired } from "./tokens.js";
import { bearerValue, OAUTH_MESSAGES, oauthError } from "./wire.js";

/** OpenID Connect userinfo and the discovery documents, served at the origin root like GitLab. */
export function oauthMetaRoutes(app: Express, ctx: SimContext<ForgeState>): void {
  const userinfo = (req: Request, res: Response) => {
    const state = ctx.state;
    const t = state.tokens.get(bearerValue(req) ?? "");
    if (!t || t.revoked_at_ms !== undefined || oauthExpired(state, t)) {
      return oauthError(res, 401, "invalid_token", OAUTH_MESSAGES.token_unknown);
    }
    if (!t.scopes.includes("openid")) {
      return void res.status(403).json({
        error: "insufficient_scope",
        error_description: "The request requires higher privileges than provided by the access token.",
        scope: "openid",
      });
    }
    const user = userById(state, t.user_id)!;
    res.json({
      sub: String(user.id),
      name: user.name,
      nickname: user.username,
      preferred_username: user.username,
      email: user.email,
      email_verified: true,
      profile: `${ctx.origin}/${user.username}`,
      picture: `${ctx.origin}/uploads/-/system/user/avatar/${user.id}/avatar.png`,
      groups: [],
    });
  };
  app.get("/oauth/userinfo", userinfo);
  app.post("/oauth/userinfo", userinfo);

  const discovery = (_req: Request, res: Response) => {
    const o = ctx.origin;
    res.json({
      issuer: o,
      authorization_endpoint: `${o}/oauth/authorize`,
      token_endpoint: `${o}/oauth/token`,
      revocation_endpoint: `${o}/oauth/revoke`,
      userinfo_endpoint: `${o}/oauth/userinfo`,
      jwks_uri: `${o}/oauth/discovery/keys`,
      scopes_supported: [...KNOWN_SCOPES],
      response_types_supported: ["code"],
      response_modes_supported: ["query", "fragment"],
      grant_types_supported: [
        "authorization_code",
        "refresh_token",
        "urn:ietf:params:oauth:grant-type:device_code",
      ],
      device_authorization_endpoint: `${o}/oauth/authorize_device`,
      token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
      code_challenge_methods_supported: ctx.state.settings.pkceMethods,
      subject_types_supported: ["public"],
      id_token_signing_alg_values_supported: ["RS256"],
      claims_supported: [
        "iss",
        "sub",
        "aud",
        "exp",
        "iat",
        "sub_legacy",
        "name",
        "nickname",
        "preferred_username",
        "email",
        "email_verified",
        "website",
        "profile",
        "picture",
        "groups",
        "groups_direct",
      ],
    });
  };
  app.get("/oauth/discovery/keys", (_req, res) => {
    res.json(jwks());
  });
  app.get("/.well-known/openid-configuration", discovery);
  app.get("/.well-known/oauth-authorization-server", discovery);
}
