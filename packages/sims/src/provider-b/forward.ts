import type { Request, Router } from "express";
import { body, str } from "../kit/body.js";
import { h, WireError } from "../kit/errors.js";
import { checkMetadata, isObject, patchMetadata } from "../kit/records.js";
import { answer, getView } from "../kit/routes.js";
import { put, type Rec } from "../kit/store.js";
import { CHANNEL_KEYS, storedCredentials } from "./channel-credentials.js";
import {
  assertUnique,
  bad,
  type Ctx,
  conflict,
  find,
  idempotent,
  listAfterId,
  missing,
  replayIfSeen,
  stamp,
  view,
} from "./common.js";

function boolField(v: unknown): boolean {
  if (typeof v !== "boolean") throw bad("enabled must be a boolean");
  return v;
}

export function identityRoutes(r: Router, ctx: Ctx): void {
  const identities = () => ctx.state.objects.identities;
  const get = (req: Request) => find(ctx, "identities", req.params.id as string, "identity");

  r.post(
    "/identities",
    h((req, res) => {
      if (replayIfSeen(ctx, req, res)) return;
      const b = body(req);
      const externalId = str(b, "external_id", true)!;
      assertUnique(identities().values(), "external_id", externalId);
      if (b.enabled !== undefined && typeof b.enabled !== "boolean") throw bad("enabled must be a boolean");
      const metadata = checkMetadata(b.metadata);
      idempotent(ctx, req, res, () =>
        view(
          put(ctx.state, "identities", {
            id: ctx.ids.next("idn_"),
            type: "identity",
            external_id: externalId,
            name: str(b, "name") ?? externalId,
            enabled: b.enabled ?? true,
            metadata,
            ...stamp(ctx),
          }),
        ),
      );
    }),
  );
  r.get(
    "/identities",
    h((req, res) => {
      const ext = req.query.external_id;
      res.json(
        listAfterId(
          ctx,
          req,
          [...identities().values()].filter((i) => ext === undefined || i.external_id === ext),
        ),
      );
    }),
  );
  getView(r, "/identities/:id", (req) => get(req));
  r.post(
    "/identities/:id",
    h((req, res) => {
      const rec = get(req);
      const b = body(req);
      if (b.external_id !== undefined && b.external_id !== rec.external_id)
        throw bad("external_id cannot be changed");
      if (b.name !== undefined) rec.name = str(b, "name") ?? rec.name;
      if (b.enabled !== undefined) {
        if (typeof b.enabled !== "boolean") throw bad("enabled must be a boolean");
        rec.enabled = b.enabled;
      }
      // Identities drop a metadata key when it is sent as "" (not null, unlike other kinds).
      rec.metadata = patchMetadata(rec.metadata as Record<string, string>, b.metadata, "");
      rec.updated_at = ctx.clock.iso();
      res.json(view(rec));
    }),
  );
  r.delete(
    "/identities/:id",
    h((req, res) => {
      const rec = get(req);
      identities().delete(rec.id);
      res.json({ id: rec.id, type: "identity_deleted" });
    }),
  );

  // Identity × Template memory mounts.
  const pair = (req: Request) => {
    const identity = get(req);
    const tmpl = find(ctx, "templates", req.params.tmpl as string, "template");
    return { identity, tmpl };
  };
  r.post(
    "/identities/:id/templates/:tmpl/memory_stores",
    h((req, res) => {
      const { identity, tmpl } = pair(req);
      if (tmpl.status === "archived") throw conflict(`template ${tmpl.id} is archived`, "ALREADY_ARCHIVED");
      const storeId = str(body(req), "memory_store_id", true)!;
      const store = ctx.state.objects.memory_stores.get(storeId);
      if (!store || store.archived_at) throw bad(`memory store ${storeId} not found or archived`);
      const mounts = ctx.state.mounts.filter(
        (m) => m.identity_id === identity.id && m.template_id === tmpl.id,
      );
      if (mounts.some((m) => m.memory_store_id === storeId))
        throw conflict(`memory store ${storeId} is already mounted`);
      const mount = {
        identity_id: identity.id,
        template_id: tmpl.id,
        memory_store_id: storeId,
        system_managed: false,
        access: "read_only" as const,
        created_at: ctx.clock.iso(),
      };
      ctx.state.mounts.push(mount);
      res.json({ memory_store_id: storeId, system_managed: false, access: mount.access });
    }),
  );
  r.get(
    "/identities/:id/templates/:tmpl/memory_stores",
    h((req, res) => {
      const { identity, tmpl } = pair(req);
      const data = ctx.state.mounts
        .filter((m) => m.identity_id === identity.id && m.template_id === tmpl.id)
        .map((m) => ({
          memory_store_id: m.memory_store_id,
          system_managed: m.system_managed,
          access: m.access,
        }));
      res.json({ data });
    }),
  );
  r.delete(
    "/identities/:id/templates/:tmpl/memory_stores/:sid",
    h((req, res) => {
      const { identity, tmpl } = pair(req);
      const before = ctx.state.mounts.length;
      ctx.state.mounts = ctx.state.mounts.filter(
        (m) =>
          !(
            m.identity_id === identity.id &&
            m.template_id === tmpl.id &&
            m.memory_store_id === req.params.sid
          ),
      );
      if (ctx.state.mounts.length === before) throw missing("memory store mount", req.params.sid as string);
      res.json({ memory_store_id: req.params.sid, type: "memory_store_mount_deleted" });
    }),
  );
}

/** Channel credentials: validated per type, the secret kept only as sha256, read back without it. */
function channelConfig(
  type: string,
  value: unknown,
): { stored: Record<string, unknown>; secretsSha256?: Record<string, string>; publicKey?: string } {
  const keys = CHANNEL_KEYS[type];
  const cfg = value === undefined || value === null ? {} : value;
  if (!isObject(cfg)) throw bad("channel_config must be an object");
  const options = cfg.response_options ?? {};
  if (!isObject(options)) throw bad("channel_config.response_options must be an object");
  const response_options = { include_tool_calls: false, include_thinking: false, ...options };
  if (keys === null) {
    if (cfg.credentials !== undefined)
      throw bad(`${type} channels are connected by QR code and take no credentials`);
    return { stored: { response_options } };
  }
  const creds = cfg.credentials;
  if (!isObject(creds)) throw bad(`channel_config.credentials is required for ${type}`);
  for (const k of keys!) {
    if (typeof creds[k] !== "string" || creds[k] === "")
      throw bad(`channel_config.credentials.${k} is required for ${type}`);
  }
  const { credentials, secretsSha256 } = storedCredentials(type, creds);
  return { stored: { credentials, response_options }, secretsSha256, publicKey: creds[keys![0]] as string };
}

function channelView(rec: Rec): Record<string, unknown> {
  const v = view(rec);
  const cfg = rec.channel_config as Record<string, unknown>;
  const keys = CHANNEL_KEYS[rec.channel_type as string];
  const creds = cfg.credentials as Record<string, unknown> | undefined;
  v.channel_config = creds && keys ? { ...cfg, credentials: { [keys[0]]: creds[keys[0]] } } : cfg;
  return v;
}

export function channelRoutes(r: Router, ctx: Ctx): void {
  const channels = () => ctx.state.objects.channels;
  const get = (req: Request) => find(ctx, "channels", req.params.id as string, "channel");
  const checkCredentialFree = (type: string, key: string | undefined, exceptId?: string) => {
    if (!key) return;
    for (const c of channels().values()) {
      if (c.id !== exceptId && c.channel_type === type && c._credential_key === key) {
        throw conflict(
          `these ${type} credentials are already used by channel ${c.id}`,
          "CHANNEL_CREDENTIAL_CONFLICT",
        );
      }
    }
  };
  const binding = (b: Record<string, unknown>) => {
    const pairing = isObject(b.identity_resolution) && b.identity_resolution.mode === "pairing";
    if (b.identity_resolution !== undefined && !pairing)
      throw bad('identity_resolution must be {mode:"pairing"}');
    if (pairing) {
      if (b.identity_id !== undefined || b.template_id !== undefined) {
        throw bad("pairing channels take no identity_id or template_id");
      }
      return { identity_resolution: { mode: "pairing" }, identity_id: null, template_id: null };
    }
    const identity = find(ctx, "identities", str(b, "identity_id", true)!, "identity");
    const tmpl = ctx.state.objects.templates.get(str(b, "template_id", true)!);
    if (!tmpl || tmpl.status === "archived")
      throw bad(`template ${String(b.template_id)} not found or archived`);
    return { identity_resolution: { mode: "fixed" }, identity_id: identity.id, template_id: tmpl.id };
  };

  r.post(
    "/channels",
    h((req, res) => {
      if (replayIfSeen(ctx, req, res)) return;
      const b = body(req);
      const type = str(b, "channel_type", true)!;
      if (!(type in CHANNEL_KEYS))
        throw bad(`channel_type must be one of ${Object.keys(CHANNEL_KEYS).join(", ")}`);
      const name = str(b, "name", true)!;
      assertUnique(channels().values(), "name", name);
      const { stored, secretsSha256, publicKey } = channelConfig(type, b.channel_config);
      checkCredentialFree(type, publicKey);
      const bound = binding(b);
      idempotent(ctx, req, res, () =>
        channelView(
          put(ctx.state, "channels", {
            id: ctx.ids.next("chn_"),
            type: "channel",
            channel_type: type,
            name,
            enabled: b.enabled === undefined ? true : boolField(b.enabled),
            channel_config: stored,
            ...bound,
            ...stamp(ctx),
            _credential_key: publicKey ?? null,
            ...(secretsSha256 ? { _secrets_sha256: secretsSha256 } : {}),
          }),
        ),
      );
    }),
  );
  r.get(
    "/channels",
    h((req, res) => {
      const page = listAfterId(ctx, req, [...channels().values()]);
      res.json({ ...page, data: page.data.map((v) => channelView(channels().get(v.id as string)!)) });
    }),
  );
  r.get(
    "/channels/:id",
    answer((req) => channelView(get(req))),
  );
  r.post(
    "/channels/:id",
    h((req, res) => {
      const rec = get(req);
      const b = body(req);
      if (b.channel_type !== undefined && b.channel_type !== rec.channel_type) {
        throw bad("channel_type cannot be changed; delete and recreate the channel");
      }
      if (b.identity_resolution !== undefined)
        throw bad("identity_resolution cannot be changed; delete and recreate");
      if (b.name !== undefined) {
        const name = str(b, "name", true)!;
        assertUnique(channels().values(), "name", name, rec.id);
        rec.name = name;
      }
      if (b.enabled !== undefined) rec.enabled = boolField(b.enabled);
      if (b.channel_config !== undefined) {
        const { stored, secretsSha256, publicKey } = channelConfig(
          rec.channel_type as string,
          b.channel_config,
        );
        checkCredentialFree(rec.channel_type as string, publicKey, rec.id);
        rec.channel_config = stored;
        if (secretsSha256) rec._secrets_sha256 = secretsSha256;
        else delete rec._secrets_sha256;
        rec._credential_key = publicKey ?? null;
      }
      if (
        (rec.identity_resolution as Rec).mode === "fixed" &&
        (b.identity_id !== undefined || b.template_id !== undefined)
      ) {
        Object.assign(
          rec,
          binding({
            identity_id: b.identity_id ?? rec.identity_id,
            template_id: b.template_id ?? rec.template_id,
          }),
        );
      }
      rec.updated_at = ctx.clock.iso();
      res.json(channelView(rec));
    }),
  );
  r.delete(
    "/channels/:id",
    h((req, res) => {
      const rec = get(req);
      channels().delete(rec.id);
      res.json({ id: rec.id, type: "channel_deleted" });
    }),
  );
}

/** Tunnels are provisioned outside the API: read-only here, pre-seeded in the state. */
export function tunnelRoutes(r: Router, ctx: Ctx): void {
  r.get(
    "/tunnels",
    answer((req) => listAfterId(ctx, req, [...ctx.state.objects.tunnels.values()])),
  );
  getView(r, "/tunnels/:id", (req) => find(ctx, "tunnels", req.params.id as string, "tunnel"));
  r.all(
    ["/tunnels", "/tunnels/*rest"],
    h(() => {
      throw new WireError(405, "", "tunnels are read-only: they are provisioned outside the API");
    }),
  );
}
