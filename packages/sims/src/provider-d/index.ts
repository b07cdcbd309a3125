import type { Request } from "express";
import type { SimDefinition } from "../core/sim.js";
import { ApiError, providerDCode, typeForStatus } from "../managed/errors.js";
import { mountApi } from "../managed/http.js";
import { makeKit } from "../managed/kit.js";
import { dialectRoutes } from "../managed/routes.js";
import { sessionRoutes } from "../managed/sessions.js";
import { dumpState, seedState } from "../managed/snapshot.js";
import { createState, type Dialect, type State } from "../managed/state.js";
import { skillRoutes } from "./skills.js";

/** The well-known test key every provider_d simulator accepts (more can be seeded as `api_keys`). */
export const DEFAULT_KEY = "sim-provider-d-key";

export const dialect: Dialect = {
  name: "provider_d",
  // Id formats are undetermined upstream; the reference fixtures are hyphenated, so these are too
  // (clients must treat ids as opaque).
  idPrefix: {
    environment: "env-",
    vault: "vlt-",
    credential: "vcrd-",
    file: "file-",
    skill: "skill-",
    agent: "agent-",
    memory_store: "memstore-",
    memory: "mem-",
    memory_version: "memver-",
    deployment: "depl-",
    deployment_run: "drun-",
    session: "sesn-",
    session_resource: "sesrsc-",
    session_thread: "sthr-",
    event: "sevt-",
  },
  toolsetType: "agent_toolset_20260701",
  metadataUpdate: "replace",
  limits: { defaultLimit: 20, maxLimit: 100 },
  modelObjectOnly: true,
  rosterObjectsOnly: true,
  credentialTypes: ["static_bearer", "environment_variable"],
  archivable: new Set(),
  agentDelete: true,
  memoryVersions: false,
  resourceTypes: ["file", "memory_store"],
  mountRoot: "/mnt",
};

function authenticate(req: Request, keys: Set<string>): void {
  const header = req.headers.authorization;
  if (typeof header !== "string" || !/^Bearer\s+\S/i.test(header)) {
    throw new ApiError(
      401,
      "authentication_error",
      "the request is missing an Authorization: Bearer <api key> header",
    );
  }
  if (!keys.has(header.replace(/^Bearer\s+/i, "").trim())) {
    throw new ApiError(401, "authentication_error", "the API key is invalid");
  }
}

export function renderError(err: ApiError): unknown {
  return { error: { code: providerDCode(err), message: err.message } };
}

export const definition: SimDefinition<State> = {
  name: "provider_d",
  basePath: "/api/v3",
  createState: () => createState(DEFAULT_KEY),
  routes(app, ctx) {
    const kit = makeKit(dialect, ctx);
    mountApi(app, {
      basePath: "/api/v3",
      authenticate: (req) => authenticate(req, ctx.state.apiKeys),
      render: renderError,
      routes(router) {
        dialectRoutes(router, kit, skillRoutes);
        sessionRoutes(router, kit);
        // No deployment routes: provider_d has no deployment API (clients emulate it with sessions).
      },
    });
  },
  errorBody: (status, message) => renderError(new ApiError(status, typeForStatus(status), message)),
  seed: (ctx, body) => ({ seeded: seedState(ctx.state, body) }),
  dump: (ctx) => dumpState(ctx.state),
};
