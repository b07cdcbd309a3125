import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type Browser, type BrowserContext, type ConsoleMessage, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeWith, servicePath } from "../../../../scripts/test-services.js";
import { APP_ID, type Forge, seedApp, startForge } from "../forge-sim.js";
import { getManual, postForm, type RunningForgeMcp, register, SECRET, startForgeMcp } from "../helpers.js";
import { pkce } from "../oauth-client.js";

/**
 * The consent page as a user meets it: Debian's Chromium, headless, loads /authorize, a click on
 * the page's own buttons, and every redirect after it followed by the browser under the page's
 * Content-Security-Policy (Chromium applies form-action to the redirects that follow a form
 * POST). The forge simulator's user approves at the forge automatically.
 */

const modes = {
  memory: {},
  stateless: { OAUTH_STATELESS_MODE: "true", OAUTH_STATELESS_SECRET: SECRET },
} as const;

const rows = [
  { mode: "memory", decision: "approve" },
  { mode: "memory", decision: "deny" },
  { mode: "stateless", decision: "approve" },
  { mode: "stateless", decision: "deny" },
] as const;

describeWith("chromium")("the consent page in headless Chromium (proxy mode, consent on)", () => {
  let forge: Forge;
  let launching: Promise<Browser> | undefined;
  // One context and one page for every row, its cookies (the only state these pages keep) cleared
  // before each: a fresh browser to the servers, without a context and a renderer started per row
  // (each cost more than the row's own navigation).
  let context: BrowserContext;
  let page: Page;
  const freshPage = async () => {
    await context.clearCookies();
    return page;
  };
  let client: Server;
  let clientCallback = "";
  const arrivals: URL[] = [];
  const servers: Partial<Record<keyof typeof modes, RunningForgeMcp>> = {};

  beforeAll(async () => {
    // the browser starts while the servers do
    launching = chromium.launch({
      executablePath: servicePath("chromium")!,
      headless: true,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    });
    forge = await startForge();
    client = createServer((req, res) => {
      arrivals.push(new URL(req.url ?? "/", clientCallback));
      res.writeHead(200, { "content-type": "text/plain" }).end("back at the client");
    });
    await new Promise<void>((resolve) => client.listen(0, "127.0.0.1", resolve));
    clientCallback = `http://127.0.0.1:${(client.address() as AddressInfo).port}/callback`;
    for (const [mode, extra] of Object.entries(modes)) {
      servers[mode as keyof typeof modes] = await startForgeMcp({
        FORGE_MCP_OAUTH: "true",
        FORGE_OAUTH_CALLBACK_PROXY: "true",
        FORGE_OAUTH_APP_ID: APP_ID,
        FORGE_API_URL: forge.apiUrl,
        ...extra,
      });
    }
    await seedApp(
      forge,
      Object.values(servers).map((s) => `${s!.url}/callback`),
    );
    const browser = await launching;
    context = await browser.newContext();
    page = await context.newPage();
  });
  afterAll(async () => {
    await (await launching?.catch(() => undefined))?.close();
    await Promise.all(Object.values(servers).map((s) => s!.close()));
    await new Promise<void>((resolve) => (client ? client.close(() => resolve()) : resolve()));
    await forge?.close();
  });

  it.each(rows)("$mode mode, $decision: the browser lands on the client's redirect URI", async (row) => {
    const server = servers[row.mode]!;
    const reg = await register(server.url, {
      redirect_uris: [clientCallback],
      client_name: "Browser client",
    });
    const clientId = reg.body.client_id as string;
    const p = pkce();
    const state = `st-${row.mode}-${row.decision}`;
    const authorize = new URL(`${server.url}/authorize`);
    authorize.search = new URLSearchParams({
      client_id: clientId,
      redirect_uri: clientCallback,
      response_type: "code",
      code_challenge: p.challenge,
      code_challenge_method: "S256",
      state,
      scope: "api",
    }).toString();

    const page = await freshPage();
    const violations: string[] = [];
    const onConsole = (m: ConsoleMessage) => {
      if (m.text().includes("Content Security Policy")) violations.push(m.text());
    };
    page.on("console", onConsole);
    try {
      await page.goto(authorize.href);
      expect(await page.title()).toBe("Authorize Browser client");
      await Promise.all([
        page.waitForURL((u) => u.href.startsWith(clientCallback), { timeout: 20_000 }),
        page.click(`button[value="${row.decision}"]`),
      ]);
      expect(await page.textContent("body")).toBe("back at the client");
    } finally {
      page.off("console", onConsole);
    }
    expect(violations).toEqual([]);
    const landed = arrivals.filter((u) => u.searchParams.get("state") === state);
    expect(landed).toHaveLength(1);
    const back = landed[0]!.searchParams;
    if (row.decision === "deny") {
      expect(back.get("error")).toBe("access_denied");
      expect(back.get("code")).toBeNull();
      return;
    }
    expect(back.get("error")).toBeNull();
    const token = await postForm(`${server.url}/token`, {
      grant_type: "authorization_code",
      client_id: clientId,
      code: back.get("code")!,
      redirect_uri: clientCallback,
      code_verifier: p.verifier,
    });
    expect(token.status).toBe(200);
    expect(token.body.access_token).toBeTruthy();
  });

  // oauth/callback-binding.test.ts checks the attack in every mode; here once, as Chromium meets it
  it.each(["memory"])(
    "%s mode: a forge URL approved in another browser ends on our refusal page, never at the client",
    async (mode) => {
      const server = servers[mode as keyof typeof modes]!;
      const clientId = (await register(server.url, { redirect_uris: [clientCallback] })).body
        .client_id as string;
      const state = `attack-${mode}`;
      const authorize = new URL(`${server.url}/authorize`);
      authorize.search = new URLSearchParams({
        client_id: clientId,
        redirect_uri: clientCallback,
        response_type: "code",
        code_challenge: pkce().challenge,
        code_challenge_method: "S256",
        state,
      }).toString();
      // the attacker approves in his own user agent and keeps the forge URL
      const page1 = await getManual(authorize.href);
      const field = (n: string) => page1.text.match(new RegExp(`name="${n}" value="([^"]+)"`))![1]!;
      const approved = await postForm(
        `${server.url}/authorize/consent`,
        { state: field("state"), consent_token: field("consent_token"), decision: "approve" },
        { cookie: page1.headers.getSetCookie()[0]!.split(";")[0]! },
      );
      const forgeUrl = approved.headers.get("location")!;
      // the victim opens it in Chromium (no cookie of the attacker's)
      const page = await freshPage();
      const response = await page.goto(forgeUrl);
      expect(new URL(page.url()).pathname).toBe("/callback");
      expect(response?.status()).toBe(403);
      expect(await page.title()).toBe("Sign-in not completed");
      expect(arrivals.filter((u) => u.searchParams.get("state") === state)).toEqual([]);
    },
  );
});
