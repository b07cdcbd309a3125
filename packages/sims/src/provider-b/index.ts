import express from "express";
import type { SimDefinition } from "../core/sim.js";
import { errorMiddleware } from "../kit/errors.js";
import { agentRoutes } from "./agents.js";
import { auth, bodyLimit, errorBody, FORWARD_BASE, MANAGED_BASE } from "./common.js";
import { deploymentRoutes, fireSchedules } from "./deployments.js";
import { environmentRoutes, vaultRoutes } from "./environments.js";
import { channelRoutes, identityRoutes, tunnelRoutes } from "./forward.js";
import { memoryRoutes } from "./memory.js";
import { sessionRoutes } from "./sessions.js";
import { type BState, createState, dumpState, seedState } from "./state.js";
import { templateRoutes } from "./templates.js";
import { fileRoutes, presignedRoute, skillRoutes } from "./uploads.js";

/**
 * provider_b: the Managed ("cloud") gateway and the Forward gateway of one account, served by one
 * simulator. Objects remember the gateway that created them; see docs/sims.md for what is shared.
 */
export const definition: SimDefinition<BState> = {
  name: "provider_b",
  basePath: MANAGED_BASE,
  createState,
  errorBody: (status, message) => errorBody(status, message),
  routes(app, ctx) {
    const managed = express.Router();
    const forward = express.Router();
    // Schedules fire lazily, before anything that could show their runs is served.
    managed.use(["/deployments", "/sessions"], (_req, _res, next) => {
      fireSchedules(ctx);
      next();
    });
    for (const [router, domain] of [
      [managed, "managed"],
      [forward, "forward"],
    ] as const) {
      environmentRoutes(router, ctx, domain);
      vaultRoutes(router, ctx, domain);
      fileRoutes(router, ctx, domain);
      skillRoutes(router, ctx, domain);
      memoryRoutes(router, ctx, domain);
      sessionRoutes(router, ctx, domain);
      tunnelRoutes(router, ctx);
    }
    agentRoutes(managed, ctx);
    deploymentRoutes(managed, ctx);
    templateRoutes(forward, ctx);
    identityRoutes(forward, ctx);
    channelRoutes(forward, ctx);

    presignedRoute(app, ctx);
    app.use(MANAGED_BASE, auth(ctx), bodyLimit, managed);
    app.use(FORWARD_BASE, auth(ctx), bodyLimit, forward);
    app.use(errorMiddleware((e) => errorBody(e.status, e.message, e.code)));
  },
  seed: (ctx, body) => seedState(ctx.state, body, ctx.clock.iso()),
  dump: (ctx) => dumpState(ctx.state),
};
