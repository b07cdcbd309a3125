import express from "express";
import type { SimDefinition } from "../core/sim.js";
import { errorMiddleware } from "../kit/errors.js";
import { agentRoutes } from "./agents.js";
import { auth, BASE, errorBody } from "./common.js";
import { deploymentRoutes, fireSchedules } from "./deployments.js";
import { environmentRoutes, vaultRoutes } from "./environments.js";
import { sessionRoutes } from "./sessions.js";
import { type AState, createState, dumpState, seedState } from "./state.js";
import { fileRoutes, skillRoutes } from "./uploads.js";

/** provider_a: one workspace of the AgentStudio managed-agents API under `/api/v1/agentstudio`. */
export const definition: SimDefinition<AState> = {
  name: "provider_a",
  basePath: BASE,
  createState,
  errorBody: (status, message) => errorBody(status, message),
  routes(app, ctx) {
    const api = express.Router();
    // Schedules fire lazily, before anything that could show their runs is served.
    api.use(["/deployments", "/sessions"], (_req, _res, next) => {
      fireSchedules(ctx);
      next();
    });
    environmentRoutes(api, ctx);
    vaultRoutes(api, ctx);
    fileRoutes(api, ctx);
    skillRoutes(api, ctx);
    agentRoutes(api, ctx);
    deploymentRoutes(api, ctx);
    sessionRoutes(api, ctx);
    app.use(BASE, auth(ctx), api);
    app.use(errorMiddleware((e) => errorBody(e.status, e.message, e.code)));
  },
  seed: (ctx, body) => seedState(ctx.state, body),
  dump: (ctx) => dumpState(ctx.state),
};
