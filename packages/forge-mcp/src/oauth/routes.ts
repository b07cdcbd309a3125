import express, { type Request, type Response, type Router } from "express";
import type { Logger } from "pino";
import { bodyLimit } from "../body-limit.js";
import { CALLBACK_BINDING_MAX_AGE_MS, callbackCookieName } from "./callback-binding.js";
import { consentCookieName, consentCsp } from "./consent.js";
import { OAuthError } from "./errors.js";
import type { AuthorizeOutcome, OAuthService } from "./service.js";
import {
  STORE_RETRY_AFTER_SECONDS,
  STORE_UNAVAILABLE_CSP,
  storeUnavailable,
  storeUnavailablePage,
} from "./store-errors.js";

/**
 * HTTP binding of OAuthService. Our own routes rather than the SDK's mcpAuthRouter because the
 * spec needs things that router cannot express: /callback and the consent page, PKCE compared in
 * constant time with S256 only and empty challenges refused, generic RFC 6749 messages (the SDK
 * echoes validation details), and a registration limit that can be shared across replicas.
 */

/** The body limit of the OAuth routes (/register, /token, /revoke, the consent form). */
export const OAUTH_BODY_LIMIT = 16 * 1024;

export function oauthRouter(
  service: OAuthService,
  opts: { mode: "passthrough" | "proxy"; secureCookies: boolean; logger: Logger },
): Router {
  const r = express.Router();
  // nothing past 16 KiB is read: the body parsers alone would read an over-limit body to its end
  // before their 413, and these routes answer anyone
  const limit = bodyLimit(OAUTH_BODY_LIMIT, opts.logger);
  const form = express.urlencoded({ extended: false, limit: OAUTH_BODY_LIMIT });
  const json = express.json({ limit: OAUTH_BODY_LIMIT });

  const fail = (res: Response, err: unknown, where: string) => {
    const e =
      err instanceof OAuthError
        ? err
        : (storeUnavailable(err) ?? new OAuthError("server_error", `${where}: ${(err as Error).message}`));
    opts.logger.warn({ error: e.code, detail: e.detail }, `${where} failed`);
    const retry =
      (e as { retryAfterSeconds?: number }).retryAfterSeconds ??
      (e.code === "temporarily_unavailable" ? STORE_RETRY_AFTER_SECONDS : undefined);
    if (retry) res.setHeader("Retry-After", String(retry));
    if (e.code === "invalid_client" && e.status === 401)
      res.setHeader("WWW-Authenticate", 'Basic realm="forge-mcp"');
    res.status(e.status).json(e.toJSON());
  };

  const answer = (res: Response, outcome: AuthorizeOutcome, where: string) => {
    res.setHeader("Cache-Control", "no-store");
    if (outcome.type === "redirect") {
      if (outcome.trustCookie) {
        // Lax: it must come along on the client's top-level GET /authorize from another site
        res.cookie(outcome.trustCookie.name, outcome.trustCookie.value, {
          httpOnly: true,
          sameSite: "lax",
          secure: opts.secureCookies,
          path: "/",
          maxAge: 30 * 24 * 3600 * 1000,
        });
      }
      if (outcome.callbackBinding) {
        // Lax: it must come along on the forge's top-level redirect to /callback
        res.cookie(
          callbackCookieName(outcome.callbackBinding.proxyState, opts.secureCookies),
          outcome.callbackBinding.mark,
          {
            httpOnly: true,
            sameSite: "lax",
            secure: opts.secureCookies,
            path: "/",
            maxAge: CALLBACK_BINDING_MAX_AGE_MS,
          },
        );
      }
      return res.redirect(302, outcome.location);
    }
    if (outcome.type === "error") return fail(res, outcome.error, where);
    // every HTML page: no URL of ours (a state, a client's redirect URI) in a Referer elsewhere
    res.setHeader("Referrer-Policy", "no-referrer");
    if (outcome.type === "error_page") {
      res.setHeader("X-Frame-Options", "DENY");
      res.setHeader("Content-Security-Policy", consentCsp([]));
      return res
        .status(outcome.status ?? 400)
        .type("html")
        .send(outcome.html);
    }
    res.setHeader("X-Frame-Options", "DENY");
    res.setHeader("Content-Security-Policy", consentCsp(outcome.formTargets));
    res.cookie(consentCookieName(outcome.proxyState), outcome.nonce, {
      httpOnly: true,
      sameSite: "strict",
      secure: opts.secureCookies,
      path: "/",
      maxAge: 10 * 60 * 1000,
    });
    return res.status(200).type("html").send(outcome.html);
  };

  /** The browser steps: a store outage is a page the user can read, not JSON. */
  const failInBrowser = (res: Response, err: unknown, where: string) => {
    const e = storeUnavailable(err);
    if (!e) return fail(res, err, where);
    opts.logger.warn({ error: e.code, detail: e.detail }, `${where} failed`);
    res.setHeader("Cache-Control", "no-store");
    res.setHeader("Retry-After", String(STORE_RETRY_AFTER_SECONDS));
    res.setHeader("X-Frame-Options", "DENY");
    res.setHeader("Referrer-Policy", "no-referrer");
    res.setHeader("Content-Security-Policy", STORE_UNAVAILABLE_CSP);
    return res.status(503).type("html").send(storeUnavailablePage());
  };

  // Browser-based MCP clients call these cross-origin; they carry no cookies or ambient credentials.
  r.use(["/register", "/token", "/revoke"], (req, res, next) => {
    res.setHeader("Access-Control-Allow-Origin", "*");
    if (req.method !== "OPTIONS") return next();
    res.setHeader("Access-Control-Allow-Methods", "POST, OPTIONS");
    res.setHeader("Access-Control-Allow-Headers", "content-type, authorization, mcp-protocol-version");
    res.setHeader("Access-Control-Max-Age", "86400");
    res.status(204).end();
  });

  r.post("/register", limit, json, async (req, res) => {
    try {
      res.setHeader("Cache-Control", "no-store");
      res.status(201).json(await service.register(req.body, req.ip ?? "unknown"));
    } catch (err) {
      fail(res, err, "register");
    }
  });

  r.get("/authorize", async (req, res) => {
    try {
      answer(
        res,
        await service.authorize(
          req.query as Record<string, unknown>,
          (name) => readCookie(req, name),
          req.ip ?? "unknown",
        ),
        "authorize",
      );
    } catch (err) {
      fail(res, err, "authorize");
    }
  });

  if (opts.mode === "proxy") {
    r.post("/authorize/consent", limit, form, async (req, res) => {
      try {
        answer(
          res,
          await service.consent(
            req.body ?? {},
            readCookie(req, consentCookieName(String(req.body?.state ?? ""))),
          ),
          "consent",
        );
      } catch (err) {
        failInBrowser(res, err, "consent");
      }
    });
    r.get("/callback", async (req, res) => {
      try {
        const state = typeof req.query.state === "string" ? req.query.state : "";
        const name = callbackCookieName(state, opts.secureCookies);
        const mark = readCookie(req, name);
        // one use: whatever the outcome, this browser's binding for the state is spent
        if (mark !== undefined)
          res.clearCookie(name, { httpOnly: true, sameSite: "lax", secure: opts.secureCookies, path: "/" });
        answer(
          res,
          await service.callback(req.query as Record<string, unknown>, mark, req.ip ?? "unknown"),
          "callback",
        );
      } catch (err) {
        failInBrowser(res, err, "callback");
      }
    });
  }

  r.post("/token", limit, form, async (req, res) => {
    res.setHeader("Cache-Control", "no-store");
    res.setHeader("Pragma", "no-cache");
    try {
      res.status(200).json(await service.token(req.body ?? {}, basicClientId(req), req.ip ?? "unknown"));
    } catch (err) {
      fail(res, err, "token");
    }
  });

  r.post("/revoke", limit, form, async (req, res) => {
    try {
      await service.revoke(req.body ?? {}, basicClientId(req), req.ip ?? "unknown");
      res.status(200).json({});
    } catch (err) {
      fail(res, err, "revoke");
    }
  });

  return r;
}

function readCookie(req: Request, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const [k, ...v] = part.trim().split("=");
    if (k === name) return decodeURIComponent(v.join("="));
  }
  return undefined;
}

/** Public clients send client_id in the body; accept HTTP Basic too (RFC 6749 §2.3.1). */
function basicClientId(req: Request): string | undefined {
  const h = req.headers.authorization;
  if (!h?.startsWith("Basic ")) return undefined;
  const decoded = Buffer.from(h.slice(6), "base64").toString("utf8");
  const id = decoded.split(":")[0];
  return id ? decodeURIComponent(id) : undefined;
}
