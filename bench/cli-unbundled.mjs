#!/usr/bin/env node
// The CLI from its compiled modules (packages/agents/dist/cli/main.js) instead of the bundle, for
// CPU profiles that name the source files (bench/scale.mjs --cpu-prof-dir).
import { main } from "../packages/agents/dist/cli/main.js";

await main();
