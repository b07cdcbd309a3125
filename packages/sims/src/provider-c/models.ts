import type { Router } from "express";
import { notFound } from "../managed/errors.js";
import type { Kit } from "../managed/state.js";

const MODELS = [
  { id: "claude-opus-4-5", display_name: "Claude Opus 4.5", created_at: "2025-11-24T00:00:00Z" },
  { id: "claude-sonnet-4-5", display_name: "Claude Sonnet 4.5", created_at: "2025-09-29T00:00:00Z" },
  { id: "claude-haiku-4-5", display_name: "Claude Haiku 4.5", created_at: "2025-10-15T00:00:00Z" },
].map((m) => ({ type: "model", ...m }));

/** `GET /models` uses the other page class (`has_more`, `first_id`, `last_id`); the catalog is static. */
export function modelRoutes(router: Router, _kit: Kit): void {
  router.get("/models", (_req, res) => {
    res.json({
      data: MODELS,
      has_more: false,
      first_id: MODELS[0]?.id ?? null,
      last_id: MODELS.at(-1)?.id ?? null,
    });
  });
  router.get("/models/:id", (req, res) => {
    const m = MODELS.find((x) => x.id === req.params.id);
    if (!m) throw notFound("model", String(req.params.id));
    res.json(m);
  });
}
