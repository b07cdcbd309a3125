/**
 * The part of the library API that reads and checks agents.yaml, without the engine (index.ts
 * exports the same names): `agents validate` imports only this, so it does not load the plan,
 * apply, state and session code at start-up (cli/commands/index.ts loads commands on demand).
 */
export { displayPath, formatDiagnostic, summary } from "./config/format.js";
export { loadConfig } from "./config/index.js";
