import { createHash, randomBytes } from "node:crypto";
import { afterAll, beforeAll, beforeEach } from "vitest";
import { definition } from "../../src/forge/index.js";
import { createSim, type RunningSim } from "../../src/index.js";

/** Shared plumbing for the forge conformance suites: everything goes over real HTTP. */
export const APP = "sim-forge-app";
export const CONF_APP = "sim-forge-confidential-app";
export const CONF_SECRET = "sim-forge-app-secret";
export const REDIRECT = "http://127.0.0.1:8080/callback";
export const PAT = "sim-forge-pat";

export const INVALID_GRANT =
  "The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.";

// createSim with the definition itself: vitest cannot follow the registry's variable import.
export async function startForge(): Promise<RunningSim> {
  return createSim(definition, { quiet: true });
}

export function forge(sim: RunningSim) {
  const control = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${sim.origin}/_sim${path}`, {
      method,
      headers: { "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as any };
  };

  const pkce = () => {
    const verifier = randomBytes(32).toString("base64url");
    return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
  };

  /** GET /oauth/authorize without following redirects. */
  const authorize = (params: Record<string, string | undefined>) => {
    const url = new URL("/oauth/authorize", sim.origin);
    for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
    return fetch(url, { redirect: "manual" });
  };

  /** Runs the default public-app flow to a code; returns the code and the verifier. */
  const code = async (overrides: Record<string, string | undefined> = {}) => {
    const p = pkce();
    const res = await authorize({
      client_id: APP,
      redirect_uri: REDIRECT,
      response_type: "code",
      scope: "api read_user",
      state: "st-1",
      code_challenge: p.challenge,
      code_challenge_method: "S256",
      ...overrides,
    });
    if (res.status !== 302) throw new Error(`authorize answered ${res.status}`);
    const loc = new URL(res.headers.get("location")!);
    const c = loc.searchParams.get("code");
    if (!c) throw new Error(`no code in ${loc}`);
    return { code: c, verifier: p.verifier, location: loc };
  };

  const token = async (
    params: Record<string, string | undefined>,
    opts: { json?: boolean; basic?: string } = {},
  ) => {
    const clean = Object.fromEntries(Object.entries(params).filter(([, v]) => v !== undefined)) as Record<
      string,
      string
    >;
    const headers: Record<string, string> = {
      "content-type": opts.json ? "application/json" : "application/x-www-form-urlencoded",
    };
    if (opts.basic) headers.authorization = `Basic ${Buffer.from(opts.basic).toString("base64")}`;
    const res = await fetch(`${sim.origin}/oauth/token`, {
      method: "POST",
      headers,
      body: opts.json ? JSON.stringify(clean) : new URLSearchParams(clean).toString(),
    });
    return { status: res.status, headers: res.headers, body: (await res.json()) as any };
  };

  /** A full code → token exchange for the default public app. */
  const tokens = async (scope = "api read_user") => {
    const c = await code({ scope });
    const t = await token({
      grant_type: "authorization_code",
      client_id: APP,
      code: c.code,
      redirect_uri: REDIRECT,
      code_verifier: c.verifier,
    });
    if (t.status !== 200) throw new Error(`token answered ${t.status} ${JSON.stringify(t.body)}`);
    return t.body as { access_token: string; refresh_token: string; expires_in: number; scope: string };
  };

  const api = async (path: string, init: RequestInit & { token?: string } = {}) => {
    const headers = new Headers(init.headers);
    if (init.token) headers.set("authorization", `Bearer ${init.token}`);
    else if (!headers.has("authorization") && !headers.has("private-token"))
      headers.set("private-token", PAT);
    if (typeof init.body === "string" && !headers.has("content-type"))
      headers.set("content-type", "application/json");
    const res = await fetch(`${sim.url}${path}`, { ...init, headers });
    const text = await res.text();
    let body: any = text;
    if ((res.headers.get("content-type") ?? "").includes("json")) body = JSON.parse(text);
    return { status: res.status, headers: res.headers, body };
  };

  const advance = (seconds: number) => control("POST", "/clock", { advance_seconds: seconds });

  return { url: sim.url, control, pkce, authorize, code, token, tokens, api, advance };
}

/** bob's personal access token, for the checks of what another user may see or change. */
export const BOB = { "private-token": "sim-forge-pat-bob" };

/** A request init for `forge(sim).api`: the method, a JSON body when given, and headers. */
export const send = (method: string, b?: unknown, headers: Record<string, string> = {}) => ({
  method,
  headers,
  ...(b === undefined ? {} : { body: JSON.stringify(b) }),
});

/** The request inits most suites write: a JSON POST or PUT (with headers), a DELETE. */
export const post = (b: unknown, headers: Record<string, string> = {}) => send("POST", b, headers);
export const put = (b: unknown) => send("PUT", b);
export const del = { method: "DELETE" };
/**
 * Starts one forge simulator for the file and resets it to the default dataset before each
 * test; `use` receives the client (and the simulator) once the simulator listens.
 */
export function forgeForEachTest(use: (f: ReturnType<typeof forge>, sim: RunningSim) => void): void {
  let sim: RunningSim | undefined;
  let f: ReturnType<typeof forge>;
  beforeAll(async () => {
    sim = await startForge();
    f = forge(sim);
    use(f, sim);
  });
  afterAll(async () => {
    await sim?.close();
  });
  beforeEach(async () => {
    await f.control("POST", "/reset");
  });
}

/**
 * A forge for the file's tests (one simulator, reset before each test), as stand-ins that always
 * reach the current one: `const { f, sim } = freshForge();` at the top of a suite.
 */
export function freshForge(): { f: ReturnType<typeof forge>; sim: RunningSim } {
  let client: ReturnType<typeof forge> | undefined;
  let running: RunningSim | undefined;
  forgeForEachTest((c, r) => {
    client = c;
    running = r;
  });
  const live = <T extends object>(current: () => T | undefined): T =>
    new Proxy({} as T, {
      get: (_t, key) => {
        const target = current();
        if (!target) throw new Error("the forge starts in beforeAll: use it inside a test");
        return Reflect.get(target, key);
      },
    });
  return { f: live(() => client), sim: live(() => running) };
}
