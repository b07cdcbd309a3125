import type { spawnSync } from "node:child_process";
export function formatMarkdown(text: string, spawn: typeof spawnSync): string;
