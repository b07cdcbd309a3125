/**
 * The library API of `agents`. The CLI uses only what is exported here; so can other programs.
 */

// The engine: plan, apply, destroy, import and state, over a loaded project.
export type { ApplyEvent, ExecuteResult } from "./apply/execute.js";
export {
  type AgentTest,
  checkTestText,
  type Expectation,
  loadTestFile,
  TEST_DIAGNOSTIC_CODES,
  type TestFile,
  type TestFileResult,
  testFileJsonSchema,
  testFilesFor,
} from "./config/agent-tests.js";
export { ConfigError, DIAGNOSTIC_CODES, type Diagnostic, type SourcePos } from "./config/diagnostics.js";
export { configurationReference } from "./config/docs.js";
export { displayPath, formatDiagnostic, summary } from "./config/format.js";
export {
  type ExternalRef,
  expand,
  type ResourceGraph,
  type ResourceNode,
  topologicalOrder,
} from "./config/graph.js";
export {
  type Config,
  type LoadOptions,
  type LoadResult,
  loadConfig,
  loadConfigText,
} from "./config/index.js";
export { jsonSchema } from "./config/json-schema.js";
export { agentReferences, type Reference, referencesOf } from "./config/references.js";
export { normalizeToolName } from "./config/rules/agents.js";
export { normalizeMountPath, repositoryMountPath } from "./config/rules/mounts.js";
export type {
  AgentDecl,
  ChannelDecl,
  DeploymentDecl,
  EnvironmentDecl,
  IdentityDecl,
  VaultDecl,
} from "./config/schema/index.js";
export { configSchema } from "./config/schema/index.js";
export { DEFAULT_STARTER_PROVIDER, isPlainName, isStarterProvider, starterFiles } from "./config/starter.js";
export { type Delivery, deliveryOf, targetsOf } from "./config/targets.js";
export {
  type ExpectationFailure,
  graderPrompt,
  readVerdict,
  runAgentTests,
  selectTests,
  type TestResult,
  type TestRunOptions,
  type TestRunResult,
} from "./engine/agent-tests.js";
export {
  type ApplyOptions,
  type ApplyOutcome,
  apply,
  destroy,
  type EngineOptions,
  plan,
  readPlanFile,
  readProjectState,
  withState,
  writePlanFile,
} from "./engine/api.js";
export {
  type DeploymentInfo,
  getDeployment,
  listDeployments,
  setDeploymentPaused,
} from "./engine/deployments.js";
export { type LoadOptions as ProjectLoadOptions, loadProject } from "./engine/load-project.js";
export {
  DEFAULT_IMPORT_CONCURRENCY,
  getMemory,
  importMemories,
  listMemories,
  type MemoryImportOptions,
  type MemoryImportReport,
  type MemoryInfo,
  type MemoryVersionInfo,
  memoryHistory,
  putMemory,
  redactMemoryVersion,
  removeMemory,
} from "./engine/memories.js";
export { listModels, type ModelInfo } from "./engine/models.js";
export { type LoadedProject, projectName } from "./engine/project.js";
export {
  applyRefreshOnly,
  type Drift,
  planRefreshOnly,
  type RefreshOnlyOutcome,
  type RefreshOnlyPlan,
  renderRefreshOnly,
} from "./engine/refresh-only.js";
export { runDeployment } from "./engine/run.js";
export { startSession } from "./engine/session.js";
export {
  Conversation,
  type CreateSessionInput,
  createSession,
  deleteSession,
  getSession,
  listSessions,
  type OpenSession,
  openSession,
  PROVIDERS_WITH_SESSIONS,
  type SessionEvent,
  type SessionInfo,
  StreamCutError,
  sendMessage,
  sessionEvents,
  type TurnOptions,
} from "./engine/sessions.js";
export { stateBackendForConfig } from "./engine/state-config.js";
export {
  importResource,
  listState,
  migrateState,
  moveInState,
  pullState,
  pushState,
  removeFromState,
  showState,
  stateSourceLine,
  type TransferResult,
} from "./engine/state-ops.js";
export { type AddressParts, formatAddress, type ParsedAddress, parseAddress } from "./model/address.js";
export type { ProviderCapabilities, Support } from "./model/capabilities.js";
export { isKind, KINDS, type Kind } from "./model/kinds.js";
export { redact, redactor } from "./model/redact.js";
export type { ImportBlock, MovedBlock, RemovedBlock, StateBlocks } from "./plan/blocks.js";
export { renderPlan, stateLine } from "./plan/render.js";
export {
  type ActionType,
  type DesiredResource,
  type FieldChange,
  hasChanges,
  NEW_STATE,
  type NewStateIdentity,
  type Plan,
  PlanError,
  type PlannedAction,
  refreshErrors,
} from "./plan/types.js";
export {
  ALL_ADAPTERS,
  capabilitiesOf,
  PROVIDER_NAMES,
  PROVIDERS,
  type ProviderName,
} from "./providers/catalog.js";
export {
  createHttpClient,
  createHttpClientFactory,
  type HttpClient,
  type HttpRequest,
  ProviderHttpError,
  type RetryNotice,
} from "./providers/http.js";
export type * from "./providers/types.js";
export { type StateBackend, StateConflictError, type StateRead } from "./state/backend.js";
export { FileBackend, forceUnlock, readState, STATE_FILE_NAME } from "./state/file-store.js";
export { LockedState } from "./state/locked-state.js";
export { PostgresBackend } from "./state/postgres-store.js";
export { openBackend, type StateSettings } from "./state/settings.js";
export type { LockInfo, ResourceState, State } from "./state/types.js";
export { StateError, StateLockedError } from "./state/types.js";

export { syncProject, unifiedDiff, writeSynced } from "./sync/index.js";
