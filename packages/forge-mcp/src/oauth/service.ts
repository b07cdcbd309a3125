import type { Logger } from "pino";
import type { ForgeOAuthClient } from "../forge/oauth-client.js";
import { isTokens } from "../forge/oauth-client.js";
import { isValidChallenge, newPkcePair, s256, verifierMatches } from "../pkce.js";
import { CALLBACK_REFUSED_STATUS, callbackRefusedPage } from "./callback-binding.js";
import { type ClientMetadataResolver, isMetadataClientId } from "./client-metadata.js";
import { authorizeErrorPage, type ConsentGuard, consentPage, trustCookieName } from "./consent.js";
import { OAuthError, type OAuthErrorCode } from "./errors.js";
import { GROUP_REFUSED_STATUS, type GroupGate, groupRefusedPage } from "./group-gate.js";
import { repeatedParam, SINGLE_VALUED } from "./params.js";
import { redirectUriMatches, redirectUriProblem } from "./redirect-uris.js";
import type { FamilyTokens, RefreshFamilies } from "./refresh-families.js";
import type { RelayBudget } from "./relay-budget.js";
import type { RateLimiter } from "./shared-state.js";
import {
  type ClientRecord,
  type ClientRegistry,
  type ForgeTokens,
  PROXY_CODE_TTL_MS,
  type ProxyCodeStore,
  type RefreshBinding,
  type TransactionStore,
} from "./stores.js";

/**
 * The OAuth protocol steps of forge-mcp, independent of Express: each method takes the request's
 * parameters as plain data and returns what to answer (or throws an OAuthError). The security
 * model is written once in ./README.md and docs/forge-mcp.md.
 */

export type Params = Record<string, unknown>;

export type AuthorizeOutcome =
  | {
      type: "redirect";
      location: string;
      trustCookie?: { name: string; value: string };
      /** ./callback-binding.ts: this browser may complete the transaction at /callback. */
      callbackBinding?: { proxyState: string; mark: string };
    }
  | { type: "error_page"; html: string; status?: number }
  | { type: "consent"; html: string; nonce: string; proxyState: string; formTargets: string[] }
  | { type: "error"; error: OAuthError };

interface OAuthServiceDeps {
  mode: "passthrough" | "proxy";
  consentPage: boolean;
  mcpServerUrl: string;
  /** RFC 8707: the resource indicators that name this server (its /mcp URL and its base URL). */
  resources: string[];
  forgeRootUrl: string;
  scopes: string[];
  /** Asked for when the client names none of `scopes` (default: all of them). */
  defaultScopes?: string[];
  allowlist: RegExp[];
  forge: ForgeOAuthClient;
  clients: ClientRegistry;
  transactions: TransactionStore;
  codes: ProxyCodeStore;
  refresh: RefreshBinding;
  /** Rotation with reuse detection of the refresh tokens we hand out (./refresh-families.ts). */
  families: RefreshFamilies;
  /** An access token this server revoked at the forge: the verify cache forgets it. */
  onAccessRevoked?: ((accessToken: string) => void) | undefined;
  registerLimiter: RateLimiter;
  /** Per-address bound of the forge calls /token and /revoke relay (./relay-budget.ts). */
  relayBudget: RelayBudget;
  consent: ConsentGuard;
  /** Client ID Metadata Documents: an https client_id is fetched and checked here. */
  clientMetadata?: ClientMetadataResolver;
  /** Told of OAuth events worth counting (metrics). */
  onEvent?: ((event: string) => void) | undefined;
  /** GITLAB_OAUTH_ALLOWED_GROUPS: asked before any forge token reaches a client (./group-gate.ts). */
  groupGate?: GroupGate | undefined;
  logger: Logger;
  now: () => number;
}

const str = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);

/** A CSP source expression for a URL: its origin, or its scheme alone for a non-http(s) URI. */
function cspSource(uri: string): string {
  const u = new URL(uri);
  return u.protocol === "http:" || u.protocol === "https:" ? u.origin : u.protocol;
}

/** The longest client_id we hand out: it travels in /authorize URLs and /token bodies. */
export const MAX_CLIENT_ID_LENGTH = 4096;

/** Forge errors we pass on by name at /callback; anything else becomes server_error. */
const RELAYED_AUTHORIZE_ERRORS = new Set(["access_denied", "invalid_scope", "temporarily_unavailable"]);
/** Forge token-endpoint errors we relay by name (with our generic text). */
const RELAYED_TOKEN_ERRORS = new Set<OAuthErrorCode>([
  "invalid_request",
  "invalid_grant",
  "invalid_scope",
  "unauthorized_client",
  "unsupported_grant_type",
]);

export class OAuthService {
  constructor(private readonly d: OAuthServiceDeps) {}

  /**
   * RFC 9207 issuer identification, proxy mode only: there every authorization response reaching
   * the client comes from us. In passthrough mode the forge answers the client directly, so we
   * neither send nor advertise it.
   */
  get iss(): string | undefined {
    return this.d.mode === "proxy" ? new URL(this.d.mcpServerUrl).href : undefined;
  }

  get callbackUrl(): string {
    return `${this.d.mcpServerUrl}/callback`;
  }

  async register(body: unknown, clientIp: string): Promise<Record<string, unknown>> {
    const limit = await this.d.registerLimiter.hit(clientIp);
    if (!limit.allowed) {
      const err = new OAuthError("too_many_requests", `registration rate limit reached for ${clientIp}`);
      throw Object.assign(err, { retryAfterSeconds: limit.retryAfterSeconds });
    }
    if (!body || typeof body !== "object" || Array.isArray(body)) {
      throw new OAuthError("invalid_client_metadata", "registration body is not a JSON object");
    }
    const b = body as Params;
    const uris = b.redirect_uris;
    if (!Array.isArray(uris) || uris.length === 0 || uris.length > 10) {
      throw new OAuthError("invalid_redirect_uri", "redirect_uris must be an array of 1..10 URLs");
    }
    for (const uri of uris) {
      const problem = redirectUriProblem(uri, this.d.allowlist);
      if (problem) throw new OAuthError("invalid_redirect_uri", `redirect_uri rejected: ${problem}`);
    }
    const clientName = typeof b.client_name === "string" ? b.client_name.slice(0, 200) : undefined;
    const record: ClientRecord = {
      redirect_uris: uris as string[],
      client_id_issued_at: Math.floor(this.d.now() / 1000),
      ...(clientName ? { client_name: clientName } : {}),
    };
    const clientId = await this.d.clients.register(record);
    // A stateless client id is the sealed registration: past this size it would overflow the
    // request lines and headers it travels in (431/414 at /authorize), so it is refused here.
    if (clientId.length > MAX_CLIENT_ID_LENGTH) {
      throw new OAuthError(
        "invalid_client_metadata",
        `registration too large: client_id would be ${clientId.length} chars`,
      );
    }
    this.d.logger.info({ clientName, redirectUris: record.redirect_uris }, "client registered");
    return {
      client_id: clientId,
      client_id_issued_at: record.client_id_issued_at,
      redirect_uris: record.redirect_uris,
      ...(clientName ? { client_name: clientName } : {}),
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
    };
  }

  /** `cookie` reads the browser's cookies (the per-client trust mark of RFC 9700 §4.11). */
  async authorize(
    q: Params,
    cookie: (name: string) => string | undefined = () => undefined,
    source?: string,
  ): Promise<AuthorizeOutcome> {
    // Phase 1: nothing is redirected until the client and its redirect URI are known to be good.
    const repeated = repeatedParam(q, SINGLE_VALUED.authorize);
    if (repeated === "client_id" || repeated === "redirect_uri") {
      return { type: "error", error: new OAuthError("invalid_request", `authorize: ${repeated} repeated`) };
    }
    const clientId = str(q.client_id);
    let client: (ClientRecord & { metadata_host?: string }) | undefined;
    try {
      client = clientId ? await this.client(clientId, source ?? "unknown") : undefined;
    } catch (err) {
      // a metadata document that fails: on a page, never redirected (its redirect URIs are untrusted)
      if (!(err instanceof OAuthError) || err.code !== "invalid_client") throw err;
      this.d.logger.info({ error: err.code, detail: err.detail }, "authorize rejected");
      return { type: "error_page", html: authorizeErrorPage({ clientName: undefined, code: err.code }) };
    }
    if (!clientId || !client) {
      return { type: "error", error: new OAuthError("invalid_client", "authorize: unknown client_id", 400) };
    }
    let redirectUri = str(q.redirect_uri);
    if (redirectUri === undefined) {
      if (client.redirect_uris.length !== 1) {
        return {
          type: "error",
          error: new OAuthError("invalid_request", "authorize: redirect_uri required"),
        };
      }
      redirectUri = client.redirect_uris[0]!;
    } else if (
      // the registration rules again: a loopback URI with userinfo or a fragment must not match
      redirectUriProblem(redirectUri, this.d.allowlist) !== undefined ||
      !client.redirect_uris.some((r) => redirectUriMatches(redirectUri!, r))
    ) {
      return {
        type: "error",
        error: new OAuthError("invalid_request", "authorize: unregistered redirect_uri"),
      };
    }
    // Phase 2: errors go back to the client's registered redirect URI - automatically only once
    // this browser's user has approved the client; before that, on a page, by the user's click.
    const clientState = str(q.state);
    const trusted = this.d.consent.isTrusted(clientId, cookie(trustCookieName(clientId)));
    const fail = (code: OAuthErrorCode, detail: string): AuthorizeOutcome => {
      this.d.logger.info({ error: code, detail, trusted }, "authorize rejected");
      const back = errorRedirect(redirectUri!, code, clientState, this.iss);
      if (trusted) return { type: "redirect", location: back };
      return { type: "error_page", html: authorizeErrorPage({ clientName: client.client_name, code, back }) };
    };
    if (repeated !== undefined) return fail("invalid_request", `${repeated} repeated`);
    if (q.response_type !== "code") return fail("unsupported_response_type", "response_type is not code");
    if (!isValidChallenge(q.code_challenge))
      return fail("invalid_request", "PKCE code_challenge missing or malformed");
    if (q.code_challenge_method !== "S256")
      return fail("invalid_request", "code_challenge_method must be S256");
    if (clientState !== undefined && clientState.length > 2048)
      return fail("invalid_request", "state too long");
    if (!this.servesResource(q.resource)) return fail("invalid_target", "resource names another server");
    const scope = this.scopeFor(str(q.scope));

    if (this.d.mode === "passthrough") {
      const location = this.d.forge.authorizeUrl({
        redirectUri,
        state: clientState ?? "",
        codeChallenge: q.code_challenge,
        scope,
      });
      return {
        type: "redirect",
        location: clientState === undefined ? dropParam(location, "state") : location,
      };
    }

    const proxy = newPkcePair();
    const proxyState = await this.d.transactions.create(
      {
        clientId,
        redirectUri,
        clientState,
        clientChallenge: q.code_challenge,
        proxyVerifier: proxy.verifier,
        scope,
        createdAt: this.d.now(),
      },
      source,
    );
    this.d.logger.info({ clientName: client.client_name, redirectUri }, "authorization started (proxy)");
    if (!this.d.consentPage)
      return {
        type: "redirect",
        location: this.forgeAuthorizeUrl(proxyState, proxy.verifier, scope),
        callbackBinding: { proxyState, mark: this.d.consent.callbackMark(proxyState) },
      };
    const { nonce, token } = this.d.consent.issue(proxyState);
    const html = consentPage({
      clientName: client.client_name,
      clientHost: client.metadata_host,
      redirectUri,
      forgeHost: new URL(this.d.forgeRootUrl).host,
      scope,
      proxyState,
      token,
    });
    // Where the form's navigation may go: Chromium applies the page's CSP form-action to every
    // redirect that follows the POST (approve: us, then the forge, then the client; deny: the
    // client), so each of those origins must be allowed, and nothing else.
    const formTargets = [cspSource(this.d.forgeRootUrl), cspSource(redirectUri)];
    return { type: "consent", html, nonce, proxyState, formTargets };
  }

  /** POST /authorize/consent: the user's answer on our consent page. */
  async consent(form: Params, cookieNonce: string | undefined): Promise<AuthorizeOutcome> {
    const proxyState = str(form.state);
    if (!this.d.consent.check(cookieNonce, proxyState, form.consent_token)) {
      return { type: "error", error: new OAuthError("invalid_request", "consent: CSRF check failed", 403) };
    }
    const txn = await this.d.transactions.peek(proxyState!);
    if (!txn)
      return {
        type: "error",
        error: new OAuthError("invalid_request", "consent: unknown or expired transaction"),
      };
    if (form.decision !== "approve") {
      await this.d.transactions.take(proxyState!);
      this.d.logger.info({ redirectUri: txn.redirectUri }, "authorization denied on consent page");
      return {
        type: "redirect",
        location: errorRedirect(txn.redirectUri, "access_denied", txn.clientState, this.iss),
      };
    }
    return {
      type: "redirect",
      location: this.forgeAuthorizeUrl(proxyState!, txn.proxyVerifier, txn.scope),
      trustCookie: { name: trustCookieName(txn.clientId), value: this.d.consent.trustMark(txn.clientId) },
      callbackBinding: { proxyState: proxyState!, mark: this.d.consent.callbackMark(proxyState!) },
    };
  }

  /**
   * GET /callback (proxy mode): the forge sends the user back here. `bindingMark` is the value of
   * the transaction's callback-binding cookie in this browser (./callback-binding.ts); without a
   * valid one nothing happens: the state stays unused, no forge exchange, no redirect to the client.
   * `source` is the browser's address: the proxy code counts against its pending entries.
   */
  async callback(q: Params, bindingMark?: string, source?: string): Promise<AuthorizeOutcome> {
    const proxyState = str(q.state);
    if (proxyState && !this.d.consent.isCallbackMark(proxyState, bindingMark)) {
      this.d.logger.warn(
        { cookie: bindingMark !== undefined },
        "callback: not bound to this browser, refused",
      );
      return { type: "error_page", html: callbackRefusedPage(), status: CALLBACK_REFUSED_STATUS };
    }
    const txn = proxyState ? await this.d.transactions.take(proxyState) : undefined;
    if (!txn) {
      return {
        type: "error",
        error: new OAuthError("invalid_request", "callback: unknown, expired or already used state"),
      };
    }
    const forgeError = str(q.error);
    if (forgeError) {
      const code = (RELAYED_AUTHORIZE_ERRORS.has(forgeError) ? forgeError : "server_error") as OAuthErrorCode;
      this.d.logger.info({ forgeError }, "forge returned an authorization error");
      return { type: "redirect", location: errorRedirect(txn.redirectUri, code, txn.clientState, this.iss) };
    }
    const forgeCode = str(q.code);
    if (!forgeCode)
      return {
        type: "redirect",
        location: errorRedirect(txn.redirectUri, "server_error", txn.clientState, this.iss),
      };
    let tokens: ForgeTokens;
    try {
      tokens = await this.d.forge.exchangeCode(forgeCode, txn.proxyVerifier, this.callbackUrl);
    } catch (err) {
      this.d.logger.error({ err: (err as Error).message }, "callback: forge code exchange failed");
      return {
        type: "redirect",
        location: errorRedirect(txn.redirectUri, "server_error", txn.clientState, this.iss),
      };
    }
    if (!(await this.admitted(tokens))) {
      return { type: "error_page", html: groupRefusedPage(), status: GROUP_REFUSED_STATUS };
    }
    const proxyCode = await this.d.codes.issue(
      {
        tokens: pickTokenFields(tokens),
        clientId: txn.clientId,
        redirectUri: txn.redirectUri,
        clientChallenge: txn.clientChallenge,
        createdAt: this.d.now(),
      },
      source,
    );
    const u = new URL(txn.redirectUri);
    u.searchParams.set("code", proxyCode);
    if (txn.clientState !== undefined) u.searchParams.set("state", txn.clientState);
    if (this.iss !== undefined) u.searchParams.set("iss", this.iss);
    this.d.logger.info({ redirectUri: txn.redirectUri }, "callback: proxy code issued");
    return { type: "redirect", location: u.href };
  }

  /** `source` is the requesting client's address: the forge calls and document fetches it causes are budgeted. */
  async token(form: Params, basicClientId?: string, source = "unknown"): Promise<Record<string, unknown>> {
    const repeated = repeatedParam(form, SINGLE_VALUED.token);
    if (repeated !== undefined) throw new OAuthError("invalid_request", `token: ${repeated} repeated`);
    const grantType = str(form.grant_type);
    if (!grantType) throw new OAuthError("invalid_request", "token: grant_type missing");
    if (grantType !== "authorization_code" && grantType !== "refresh_token") {
      throw new OAuthError("unsupported_grant_type", `token: grant_type ${grantType}`);
    }
    const clientId = str(form.client_id) ?? basicClientId;
    const client = clientId ? await this.client(clientId, source) : undefined;
    if (!clientId || !client) throw new OAuthError("invalid_client", "token: unknown client_id");
    if (!this.servesResource(form.resource))
      throw new OAuthError("invalid_target", "token: resource names another server");

    if (grantType === "refresh_token") {
      const presented = str(form.refresh_token);
      if (!presented) throw new OAuthError("invalid_request", "token: refresh_token missing");
      const opened = this.d.refresh.open(presented, clientId);
      if (!opened)
        throw new OAuthError("invalid_grant", "token: refresh token issued to another client (or not ours)");
      const { token: refreshToken, family, id } = opened;
      // RFC 9700 §4.14.2: a member of a family that is not its active one was used before
      if (family !== undefined && id !== undefined) {
        const state = await this.d.families.state(family, id);
        if (state === "reused") await this.endFamily(family, "token: refresh token reused");
        if (state === "reused" || state === "ended")
          throw new OAuthError("invalid_grant", `token: refresh token of a family that is ${state}`);
      }
      const params: Record<string, string> = { grant_type: "refresh_token", refresh_token: refreshToken };
      const scope = str(form.scope);
      if (scope) params.scope = scope;
      if (this.d.mode === "proxy") params.redirect_uri = this.callbackUrl;
      if (this.d.relayBudget.wasRefused(refreshToken))
        throw new OAuthError("invalid_grant", "token: refresh token refused by the forge moments ago");
      this.d.relayBudget.spend(source, "token");
      try {
        return await this.bound(await this.relayForgeToken(params), clientId, family);
      } catch (err) {
        if (err instanceof OAuthError && err.code === "invalid_grant") {
          this.d.relayBudget.rememberRefused(refreshToken);
          // the forge has rotated it meanwhile: a concurrent use of the same member
          if (
            family !== undefined &&
            id !== undefined &&
            (await this.d.families.state(family, id)) === "reused"
          )
            await this.endFamily(family, "token: refresh token reused concurrently");
        }
        throw err;
      }
    }

    const code = str(form.code);
    if (!code) throw new OAuthError("invalid_request", "token: code missing");
    const verifier = form.code_verifier;
    if (verifier === undefined || verifier === "")
      throw new OAuthError("invalid_request", "token: code_verifier missing");
    const redirectUri = str(form.redirect_uri);

    if (this.d.mode === "passthrough") {
      const params: Record<string, string> = {
        grant_type: "authorization_code",
        code,
        code_verifier: String(verifier),
      };
      const ru = redirectUri ?? (client.redirect_uris.length === 1 ? client.redirect_uris[0] : undefined);
      if (ru) params.redirect_uri = ru;
      this.d.relayBudget.spend(source, "token");
      return this.bound(await this.relayForgeToken(params), clientId, undefined);
    }

    const live = await this.d.codes.peek(code);
    const replayed = live ? undefined : await this.d.codes.spent(code);
    const record = live ?? replayed;
    if (!record) throw new OAuthError("invalid_grant", "token: proxy code unknown, expired or already used");
    if (record.clientId !== clientId)
      throw new OAuthError("invalid_grant", "token: proxy code issued to another client");
    if (redirectUri !== undefined && redirectUri !== record.redirectUri) {
      throw new OAuthError("invalid_grant", "token: redirect_uri differs from the authorization request");
    }
    if (this.d.now() - record.createdAt > PROXY_CODE_TTL_MS)
      throw new OAuthError("invalid_grant", "token: proxy code expired");
    if (!verifierMatches(verifier, record.clientChallenge)) {
      throw new OAuthError("invalid_grant", "token: code_verifier does not match the code_challenge");
    }
    if (replayed || !(await this.d.codes.consume(code))) {
      // RFC 6749 §4.1.2 / §10.5: a code used twice may have been stolen; whoever redeemed it first
      // loses the tokens it got. Only a replay that passed the checks above (same client, right
      // verifier) revokes, so a code seen in a URL alone cannot be used to sign its user out.
      await this.revokeIssued(record.tokens);
      throw new OAuthError(
        "invalid_grant",
        "token: proxy code already used; the tokens it produced are revoked",
      );
    }
    this.d.logger.info({ clientName: client.client_name }, "token: proxy code exchanged");
    return this.bound(tokenResponse(record.tokens), clientId, undefined);
  }

  /** A registered client, or one named by its metadata document's URL. */
  private async client(
    clientId: string,
    source: string,
  ): Promise<(ClientRecord & { metadata_host?: string }) | undefined> {
    if (this.d.clientMetadata && isMetadataClientId(clientId))
      return this.d.clientMetadata.resolve(clientId, source);
    return this.d.clients.get(clientId);
  }

  /** RFC 8707: absent, or one (or several, all) of the URLs that name this server. */
  private servesResource(resource: unknown): boolean {
    if (resource === undefined || resource === "") return true;
    const given = Array.isArray(resource) ? resource : [resource];
    const ours = new Set(this.d.resources.map((r) => new URL(r).href));
    return given.every((r) => typeof r === "string" && URL.canParse(r) && ours.has(new URL(r).href));
  }

  /**
   * The token response with its refresh token bound to the client that obtained it, as the new
   * active member of its family (`family` undefined: a sign-in, which starts one).
   */
  private async bound(
    response: Record<string, unknown>,
    clientId: string,
    family: string | undefined,
  ): Promise<Record<string, unknown>> {
    if (typeof response.refresh_token !== "string") return response;
    const member = family === undefined ? this.d.families.start() : { family, id: this.d.families.nextId() };
    await this.d.families.activate(member.family, member.id, {
      access_token: String(response.access_token),
      refresh_token: response.refresh_token,
    });
    return {
      ...response,
      refresh_token: this.d.refresh.bind(response.refresh_token, clientId, member.family, member.id),
    };
  }

  /**
   * Ends a refresh-token family: its active tokens are revoked at the forge and forgotten by the
   * verify cache; every member refreshes no more.
   */
  private async endFamily(family: string, why: string, reuse = true): Promise<FamilyTokens | undefined> {
    const active = await this.d.families.end(family);
    this.d.logger[reuse ? "warn" : "info"](
      { revoked: active !== undefined },
      `${why}: its family is revoked`,
    );
    if (reuse) this.d.onEvent?.("refresh_reuse");
    if (!active) return undefined;
    this.d.onAccessRevoked?.(active.access_token);
    await this.revokeIssued({ token_type: "Bearer", ...active });
    return active;
  }

  /**
   * RFC 7009. The client must be one we know (a public client names itself with client_id, or
   * HTTP Basic): else 401 invalid_client. A refresh token of ours sealed for another client is
   * not revoked, and the answer is the same 200 as for any token the server does not act on
   * (§2.2), so a client learns nothing about another's tokens. A raw token (an access token) is
   * relayed to the forge, which revokes only tokens of our application.
   */
  async revoke(form: Params, basicClientId?: string, source = "unknown"): Promise<void> {
    const clientId = str(form.client_id) ?? basicClientId;
    const client = clientId ? await this.client(clientId, source) : undefined;
    if (!clientId || !client) throw new OAuthError("invalid_client", "revoke: unknown client_id", 401);
    const presented = str(form.token);
    if (!presented) throw new OAuthError("invalid_request", "revoke: token missing");
    const opened = this.d.refresh.openForRevoke(presented, clientId);
    if (!opened) return;
    if (!opened.own) {
      this.d.logger.warn("revoke: a refresh token of another client, not revoked");
      return;
    }
    // revoking a refresh token ends its family (RFC 7009 §2.1: the grant's tokens go with it)
    const ended =
      opened.family === undefined
        ? undefined
        : await this.endFamily(opened.family, "revoke: refresh token revoked by its client", false);
    const token = opened.token;
    // the family's active refresh token is revoked already
    if (ended?.refresh_token === token || this.d.relayBudget.wasRevoked(token)) return;
    this.d.relayBudget.spend(source, "revoke");
    try {
      await this.d.forge.revoke(token, str(form.token_type_hint));
      this.d.relayBudget.rememberRevoked(token);
    } catch (err) {
      // RFC 7009: the client cannot act on a failure; log it and answer 200.
      this.d.logger.error({ err: (err as Error).message }, "revoke: forge call failed");
    }
  }

  /** Revokes at the forge the tokens a proxy code produced; failures are logged, not thrown. */
  private async revokeIssued(tokens: ForgeTokens): Promise<void> {
    const issued: Array<[string, string]> = [[tokens.access_token, "access_token"]];
    if (tokens.refresh_token) issued.push([tokens.refresh_token, "refresh_token"]);
    for (const [token, hint] of issued) {
      try {
        await this.d.forge.revoke(token, hint);
      } catch (err) {
        this.d.logger.error(
          { err: (err as Error).message },
          "token: revoking a replayed code's tokens failed",
        );
      }
    }
  }

  private forgeAuthorizeUrl(proxyState: string, proxyVerifier: string, scope: string): string {
    return this.d.forge.authorizeUrl({
      redirectUri: this.callbackUrl,
      state: proxyState,
      codeChallenge: s256(proxyVerifier),
      scope,
    });
  }

  private scopeFor(requested: string | undefined): string {
    const wanted = (requested ?? "").split(" ").filter((s) => this.d.scopes.includes(s));
    return (wanted.length > 0 ? wanted : (this.d.defaultScopes ?? this.d.scopes)).join(" ");
  }

  /**
   * The one place the group gate is asked: every forge token passes here before a client gets it.
   * A refused user's new token is revoked at the forge; a failed look-up refuses (fail closed).
   */
  private async admitted(tokens: ForgeTokens): Promise<boolean> {
    const gate = this.d.groupGate;
    if (!gate) return true;
    let ok = false;
    try {
      ok = await gate.admits(tokens.access_token);
    } catch (err) {
      this.d.logger.warn({ err: (err as Error).message }, "group gate: the forge refused the groups look-up");
    }
    if (ok) return true;
    this.d.logger.warn("group gate: sign-in refused, the user is in none of the allowed groups");
    this.d.onEvent?.("group_refused");
    await this.revokeIssued(tokens);
    return false;
  }

  private async relayForgeToken(params: Record<string, string>): Promise<Record<string, unknown>> {
    let r: { status: number; body: unknown };
    try {
      r = await this.d.forge.token(params);
    } catch (err) {
      throw new OAuthError("server_error", `token: forge unreachable: ${(err as Error).message}`);
    }
    if (r.status === 200 && isTokens(r.body)) {
      if (!(await this.admitted(r.body)))
        throw new OAuthError("invalid_grant", "token: the user is in none of GITLAB_OAUTH_ALLOWED_GROUPS");
      return tokenResponse(r.body);
    }
    const forgeError = (r.body as { error?: unknown } | undefined)?.error;
    const code = RELAYED_TOKEN_ERRORS.has(forgeError as OAuthErrorCode)
      ? (forgeError as OAuthErrorCode)
      : "server_error";
    const status = code === "server_error" ? 502 : 400;
    throw new OAuthError(code, `token: forge answered ${r.status} ${String(forgeError ?? "")}`, status);
  }
}

function pickTokenFields(t: ForgeTokens): ForgeTokens {
  const out: ForgeTokens = { access_token: t.access_token, token_type: t.token_type ?? "Bearer" };
  if (t.refresh_token !== undefined) out.refresh_token = t.refresh_token;
  if (t.expires_in !== undefined) out.expires_in = t.expires_in;
  if (t.scope !== undefined) out.scope = t.scope;
  if (t.created_at !== undefined) out.created_at = t.created_at;
  return out;
}

function tokenResponse(t: ForgeTokens): Record<string, unknown> {
  // Doorkeeper may answer "bearer"; RFC 6750 clients compare case-insensitively, some SDKs do not.
  const out: Record<string, unknown> = { access_token: t.access_token, token_type: "Bearer" };
  if (t.expires_in !== undefined) out.expires_in = t.expires_in;
  if (t.refresh_token !== undefined) out.refresh_token = t.refresh_token;
  if (t.scope !== undefined) out.scope = t.scope;
  return out;
}

function errorRedirect(
  redirectUri: string,
  code: OAuthErrorCode,
  state: string | undefined,
  iss: string | undefined,
): string {
  const u = new URL(redirectUri);
  const e = new OAuthError(code, "");
  u.searchParams.set("error", code);
  u.searchParams.set("error_description", e.message);
  if (state !== undefined) u.searchParams.set("state", state);
  if (iss !== undefined) u.searchParams.set("iss", iss);
  return u.href;
}

function dropParam(url: string, name: string): string {
  const u = new URL(url);
  u.searchParams.delete(name);
  return u.href;
}
