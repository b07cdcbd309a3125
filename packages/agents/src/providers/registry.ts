// Binds adapters to the provider blocks of a config and hands the core what it needs per
// resource: the kind handler and a HandlerContext. Everything here is keyed by name as data.
import { formatAddress } from "../model/address.js";
import { DeclarationError } from "./common/errors.js";
import { createHttpClientFactory, type HttpClientFactory, type HttpEnvironment } from "./http.js";
import type {
  DeferredHandler,
  DeferredTask,
  HandlerContext,
  HandlerOf,
  Kind,
  ListContext,
  ProviderAdapter,
  ProviderName,
  ProviderSession,
} from "./types.js";
import { UnforeseeableError } from "./unforeseeable.js";

function resourceAddress(provider: string, kind: Kind, name: string): string {
  return formatAddress({ provider, kind, name });
}

interface ResolvedRef {
  id: string;
  extra?: Record<string, unknown>;
}

interface RuntimeOptions {
  adapters: ProviderAdapter[];
  /** Provider blocks from the config, secrets resolved. */
  blocks: Partial<Record<string, Record<string, unknown>>>;
  project: string;
  configDir: string;
  /** Every resolved secret of the config: redacted from every HTTP error message. */
  secrets?: string[];
  /** Per provider base-URL overrides (simulators, proxies). */
  baseUrls?: Partial<Record<string, string>>;
  http?: HttpEnvironment;
  /** `agents destroy --cascade`, handed to every handler as `HandlerContext.cascade`. */
  cascade?: boolean;
}

export class ProviderRuntime {
  private readonly sessions = new Map<string, ProviderSession>();
  private readonly adapters = new Map<string, ProviderAdapter>();
  readonly httpFactory: HttpClientFactory & { stats: import("./http.js").HttpStats };

  constructor(private readonly options: RuntimeOptions) {
    for (const adapter of options.adapters) this.adapters.set(adapter.name, adapter);
    this.httpFactory = createHttpClientFactory(options.http);
  }

  get project(): string {
    return this.options.project;
  }
  get configDir(): string {
    return this.options.configDir;
  }

  /** The handler for a kind, or undefined when the provider does not implement it. */
  handler<K extends Kind>(provider: ProviderName, kind: K): HandlerOf<K> | undefined {
    return this.adapters.get(provider)?.kinds[kind] as HandlerOf<K> | undefined;
  }

  requireHandler<K extends Kind>(provider: ProviderName, kind: K, address: string): HandlerOf<K> {
    const handler = this.handler(provider, kind);
    if (!handler) {
      if (!this.adapters.has(provider))
        throw new UnforeseeableError("internal", `${address}: ${provider} has no adapter in this build`);
      throw new DeclarationError(
        "engine.kind_not_supported",
        `${address}: ${provider} does not support ${kind}`,
      );
    }
    return handler;
  }

  session(provider: ProviderName): ProviderSession {
    let session = this.sessions.get(provider);
    if (!session) {
      const adapter = this.adapters.get(provider);
      if (!adapter) throw new UnforeseeableError("internal", `${provider} has no adapter in this build`);
      const block = this.options.blocks[provider];
      if (!block)
        throw new DeclarationError(
          "engine.provider_not_declared",
          `${provider} is not configured: add a providers.${provider} block to agents.yaml`,
        );
      session = adapter.connect(block, this.httpFactory, this.options.baseUrls?.[provider]);
      for (const client of [session.http, ...Object.values(session.apis ?? {})])
        for (const secret of this.options.secrets ?? []) client.addSecret(secret);
      this.sessions.set(provider, session);
    }
    return session;
  }

  /**
   * One cheap authenticated read proving the credentials and base URL of a provider work
   * (the adapter's `probe`); a provider without one is not checked.
   */
  async probe(provider: ProviderName, signal: AbortSignal): Promise<void> {
    const adapter = this.adapters.get(provider);
    if (!adapter?.probe) return;
    await adapter.probe(this.session(provider).http, signal);
  }

  /** The runner of a deferred task type, when the provider's adapter has one. */
  deferredHandler(provider: ProviderName, type: string): DeferredHandler | undefined {
    return this.adapters.get(provider)?.deferred?.[type];
  }

  /** What a kind's `list` (and `readDeclared`) gets: the provider's clients, nothing about one resource. */
  listContext(provider: ProviderName, signal: AbortSignal, warn: (message: string) => void): ListContext {
    const session = this.session(provider);
    return {
      http: session.http,
      ...(session.apis ? { apis: session.apis } : {}),
      signal,
      warn,
      configDir: this.options.configDir,
    };
  }

  context(
    resource: { address: string; provider: ProviderName },
    lookup: (address: string) => ResolvedRef | undefined,
    signal: AbortSignal,
    warn: (message: string) => void,
    defer: (task: DeferredTask) => Promise<void> = async (task) => {
      throw new UnforeseeableError(
        "internal",
        `${resource.address}: ${task.description}: work can be deferred only while a destroy runs`,
      );
    },
  ): HandlerContext {
    const provider = resource.provider;
    const find = (kind: Kind, name: string) => lookup(resourceAddress(provider, kind, name));
    return {
      ...this.listContext(provider, signal, warn),
      owner: { project: this.options.project, resource: resource.address },
      resolve: (kind, name) => {
        const ref = find(kind, name);
        if (!ref)
          throw new UnforeseeableError(
            "internal",
            `${resource.address}: ${resourceAddress(provider, kind, name)} has no remote id yet`,
          );
        return ref.id;
      },
      resolveExtra: (kind, name) => find(kind, name)?.extra,
      ...(this.options.cascade ? { cascade: true } : {}),
      defer,
    };
  }
}
