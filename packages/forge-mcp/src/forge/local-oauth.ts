import { spawn } from "node:child_process";
import { createServer } from "node:http";
import type { Logger } from "pino";
import { newPkcePair, randomToken } from "../pkce.js";
import type { ForgeTokens } from "./oauth-client.js";
import { ForgeOAuthClient, isTokens } from "./oauth-client.js";

/**
 * Local (stdio) OAuth: FORGE_USE_OAUTH=true. Opens the user's browser on the forge's authorize
 * page (or prints the URL when no browser can be started), takes the callback on a loopback
 * listener at FORGE_OAUTH_REDIRECT_URI, checks the state, and exchanges the code with PKCE.
 */

interface LocalOAuthOptions {
  rootUrl: string;
  appId: string;
  redirectUri: string;
  scopes: string[];
  timeoutMs: number;
  logger: Logger;
  /** How to show the URL to the user; default: try a browser, and print to stderr. */
  open?: (url: string) => void;
  waitMs?: number;
}

export async function localOAuthLogin(o: LocalOAuthOptions): Promise<ForgeTokens> {
  const redirect = new URL(o.redirectUri);
  if (!["127.0.0.1", "localhost", "[::1]"].includes(redirect.hostname)) {
    throw new Error("FORGE_OAUTH_REDIRECT_URI must be a loopback URL (http://127.0.0.1:<port>/callback)");
  }
  const client = new ForgeOAuthClient(o.rootUrl, o.appId, o.timeoutMs);
  const pkce = newPkcePair();
  const state = randomToken();
  const url = client.authorizeUrl({
    redirectUri: o.redirectUri,
    state,
    codeChallenge: pkce.challenge,
    scope: o.scopes.join(" "),
  });

  const code = await new Promise<string>((resolve, reject) => {
    const server = createServer((req, res) => {
      const u = new URL(req.url ?? "/", o.redirectUri);
      if (u.pathname !== redirect.pathname) {
        res.writeHead(404).end();
        return;
      }
      const finish = (ok: boolean, text: string) => {
        res.writeHead(ok ? 200 : 400, { "content-type": "text/plain; charset=utf-8" }).end(text);
        server.close();
      };
      if (u.searchParams.get("state") !== state) {
        res.writeHead(400, { "content-type": "text/plain" }).end("Unknown state; ignored.");
        return;
      }
      const err = u.searchParams.get("error");
      const c = u.searchParams.get("code");
      if (err || !c) {
        finish(false, "Authorization failed. You can close this window.");
        clearTimeout(timer);
        reject(new Error(`forge authorization failed: ${err ?? "no code"}`));
        return;
      }
      finish(true, "forge-mcp is authorized. You can close this window.");
      clearTimeout(timer);
      resolve(c);
    });
    const timer = setTimeout(
      () => {
        server.close();
        reject(new Error("timed out waiting for the OAuth callback"));
      },
      o.waitMs ?? 5 * 60_000,
    );
    server.on("error", reject);
    server.listen(Number(redirect.port || 80), redirect.hostname.replace(/^\[|\]$/g, ""), () => {
      (o.open ?? openBrowser)(url);
    });
  });
  return client.exchangeCode(code, pkce.verifier, o.redirectUri);
}

function openBrowser(url: string): void {
  process.stderr.write(`forge-mcp: open this URL to authorize:\n  ${url}\n`);
  const cmd = process.platform === "darwin" ? "open" : process.platform === "win32" ? "explorer" : "xdg-open";
  try {
    const child = spawn(cmd, [url], { stdio: "ignore", detached: true });
    child.on("error", () => {}); // no browser available: the printed URL is the fallback
    child.unref();
  } catch {
    // printed above
  }
}

/**
 * Keeps a local OAuth login usable for a long stdio session: forge tokens expire after two hours,
 * so the access token is refreshed (refresh tokens rotate) shortly before it runs out.
 */
export function refreshingToken(
  initial: ForgeTokens,
  o: Pick<LocalOAuthOptions, "rootUrl" | "appId" | "redirectUri" | "timeoutMs">,
  now: () => number = Date.now,
): () => Promise<string> {
  const client = new ForgeOAuthClient(o.rootUrl, o.appId, o.timeoutMs);
  let tokens = initial;
  let expiresAt = now() + (initial.expires_in ?? 7200) * 1000;
  let pending: Promise<void> | undefined;
  return async () => {
    if (tokens.refresh_token && now() > expiresAt - 60_000) {
      pending ??= (async () => {
        const r = await client.token({
          grant_type: "refresh_token",
          refresh_token: tokens.refresh_token!,
          redirect_uri: o.redirectUri,
        });
        if (r.status === 200 && isTokens(r.body)) {
          tokens = r.body;
          expiresAt = now() + (r.body.expires_in ?? 7200) * 1000;
        }
      })().finally(() => {
        pending = undefined;
      });
      await pending;
    }
    return tokens.access_token;
  };
}
