import {
  getOAuthProtectedResourceMetadataUrl,
  mcpAuthMetadataRouter,
} from "@modelcontextprotocol/sdk/server/auth/router.js";
import type { OAuthMetadata, OAuthProtectedResourceMetadata } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { Express } from "express";

export interface DiscoveryOptions {
  /** MCP_SERVER_URL, without a trailing slash: the issuer and the base of every endpoint. */
  serverUrl: string;
  /** The protected resource: the MCP endpoint's URL. */
  resourceUrl: URL;
  scopes: string[];
  mode: "proxy" | "passthrough";
}

const RESOURCE_NAME = "forge-mcp";

/**
 * RFC 9728 §3.1: the protected resource's metadata URL (the well-known segment between the origin
 * and the resource's path). From here, so that the SDK's router module is loaded only with the
 * discovery routes: server.ts imports this module only when the server signs users in.
 */
export { getOAuthProtectedResourceMetadataUrl };

/** RFC 8414 authorization-server metadata: our own endpoints, PKCE S256, public clients only. */
export function authorizationServerMetadata(
  o: DiscoveryOptions,
): OAuthMetadata & { client_id_metadata_document_supported: boolean } {
  const base = o.serverUrl;
  return {
    issuer: new URL(base).href,
    authorization_endpoint: `${base}/authorize`,
    token_endpoint: `${base}/token`,
    registration_endpoint: `${base}/register`,
    revocation_endpoint: `${base}/revoke`,
    response_types_supported: ["code"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: ["none"],
    revocation_endpoint_auth_methods_supported: ["none"],
    scopes_supported: o.scopes,
    // an https client_id names the client's metadata document (./client-metadata.ts)
    client_id_metadata_document_supported: true,
    // RFC 9207: only proxy mode answers the authorization itself; in passthrough the forge does.
    ...(o.mode === "proxy" ? { authorization_response_iss_parameter_supported: true } : {}),
  };
}

/** RFC 9728 protected-resource metadata of the MCP endpoint. */
export function protectedResourceMetadata(o: DiscoveryOptions): OAuthProtectedResourceMetadata {
  return {
    resource: o.resourceUrl.href,
    authorization_servers: [authorizationServerMetadata(o).issuer],
    scopes_supported: o.scopes,
    resource_name: RESOURCE_NAME,
  };
}

/**
 * Serves the discovery documents at every address a client may ask: the SDK's metadata router
 * (the well-known paths, CORS) plus the two forms it does not serve. `prefix` is the path of
 * MCP_SERVER_URL ("" when none). Routes go on the app itself: a sub-router would answer an
 * OPTIONS request for these paths before the routes mounted after it saw the request.
 */
export function mountDiscovery(app: Express, o: DiscoveryOptions, prefix: string): void {
  const metadata = authorizationServerMetadata(o);
  const resource = protectedResourceMetadata(o);
  app.use(
    mcpAuthMetadataRouter({
      oauthMetadata: metadata,
      resourceServerUrl: o.resourceUrl,
      scopesSupported: o.scopes,
      resourceName: RESOURCE_NAME,
    }),
  );
  // RFC 8414 §3.1: an issuer with a path has its metadata at the well-known segment + that path.
  if (prefix) {
    app.get(`/.well-known/oauth-authorization-server${prefix}`, (_req, res) => {
      res.setHeader("Access-Control-Allow-Origin", "*");
      res.json(metadata);
    });
  }
  // Clients that probe the root form (RFC 9728 §3.1 without the resource path) get the same document.
  app.get("/.well-known/oauth-protected-resource", (_req, res) => {
    res.setHeader("Access-Control-Allow-Origin", "*");
    res.json(resource);
  });
}
