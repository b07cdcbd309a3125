import type { Router } from "express";
import { agentRoutes } from "./agents.js";
import { environmentRoutes } from "./environments.js";
import { fileRoutes } from "./files.js";
import { memoryRoutes } from "./memory.js";
import type { Kit } from "./state.js";
import { vaultRoutes } from "./vaults.js";

/**
 * The kinds every Managed-Agents dialect serves alike, in registration order, with the provider's
 * own skill routes in their place. A provider adds its deployments and sessions after them.
 */
export function dialectRoutes(
  router: Router,
  kit: Kit,
  skillRoutes: (router: Router, kit: Kit) => void,
): void {
  environmentRoutes(router, kit);
  vaultRoutes(router, kit);
  fileRoutes(router, kit);
  skillRoutes(router, kit);
  agentRoutes(router, kit);
  memoryRoutes(router, kit);
}
