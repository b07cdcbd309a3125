import type { Express } from "express";
import type { SimContext } from "../../core/sim.js";
import { projectFullPath } from "../model/access.js";
import type { ForgeState, Project } from "../model/state.js";
import { activityRoutes } from "./activity.js";
import { graphqlRoutes } from "./graphql.js";
import { labelMilestoneRoutes } from "./labels-milestones.js";
import { releaseWikiRoutes } from "./releases-wiki.js";
import { repoCiRoutes } from "./repo-ci.js";

/**
 * The REST areas added for forge-mcp's daily tools (labels, milestones, releases, wiki, issue
 * links, to-dos, events, MR conflicts, blame, forks, manual jobs, artifacts) and a minimal
 * GraphQL endpoint. Mounted before the older routes so `/projects/:id/labels/:label_id` etc. win.
 */
export function dailyRoutes(app: Express, ctx: SimContext<ForgeState>): void {
  const fullPath = (p: Project) => projectFullPath(ctx.state, p);
  labelMilestoneRoutes(app, ctx, fullPath);
  releaseWikiRoutes(app, ctx, fullPath);
  activityRoutes(app, ctx);
  repoCiRoutes(app, ctx);
  graphqlRoutes(app, ctx);
}
