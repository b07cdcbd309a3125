import type { ForgeState } from "../model/state.js";
import { addPatSeed, upsertApplication, upsertUser } from "./auth.js";

/** The well-known test credentials of a fresh forge simulator (documented in docs/sims.md). */
const DEFAULT_APP_UID = "sim-forge-app";
const DEFAULT_CONFIDENTIAL_APP_UID = "sim-forge-confidential-app";
const DEFAULT_CONFIDENTIAL_APP_SECRET = "sim-forge-app-secret";
const DEFAULT_PAT = "sim-forge-pat";
const DEFAULT_REDIRECT_URIS = [
  "http://127.0.0.1:8080/callback",
  "http://localhost:8080/callback",
  "http://localhost:6274/oauth/callback",
];
const ALL_APP_SCOPES = [
  "api",
  "read_api",
  "read_user",
  "read_repository",
  "write_repository",
  "openid",
  "profile",
  "email",
];

/** Users, OAuth applications and personal access tokens every fresh simulator starts with. */
export function seedDefaultIdentities(state: ForgeState): void {
  upsertUser(state, {
    username: "alice",
    name: "Alice Liddell",
    email: "alice@example.test",
    bio: "Maintainer",
  });
  upsertUser(state, { username: "bob", name: "Bob Builder", email: "bob@example.test" });
  upsertUser(state, { username: "carol", name: "Carol Danvers", email: "carol@example.test" });
  upsertUser(state, {
    username: "dave",
    name: "Dave Outsider",
    email: "dave@example.test",
    bio: "Member of nothing",
  });
  upsertUser(state, { username: "root", name: "Administrator", email: "admin@example.test", admin: true });

  upsertApplication(state, {
    uid: DEFAULT_APP_UID,
    name: "Forge MCP (simulated)",
    confidential: false,
    redirect_uris: DEFAULT_REDIRECT_URIS,
    scopes: ALL_APP_SCOPES,
  });
  upsertApplication(state, {
    uid: DEFAULT_CONFIDENTIAL_APP_UID,
    name: "Confidential app (simulated)",
    confidential: true,
    secret: DEFAULT_CONFIDENTIAL_APP_SECRET,
    redirect_uris: DEFAULT_REDIRECT_URIS,
    scopes: ALL_APP_SCOPES,
  });

  addPatSeed(state, { token: DEFAULT_PAT, user: "alice", name: "default", scopes: ["api"] });
  addPatSeed(state, { token: "sim-forge-pat-read", user: "alice", name: "read-only", scopes: ["read_api"] });
  addPatSeed(state, { token: "sim-forge-pat-user", user: "alice", name: "profile", scopes: ["read_user"] });
  addPatSeed(state, { token: "sim-forge-pat-bob", user: "bob", name: "default", scopes: ["api"] });
  addPatSeed(state, { token: "sim-forge-pat-carol", user: "carol", name: "default", scopes: ["api"] });
  addPatSeed(state, { token: "sim-forge-pat-dave", user: "dave", name: "default", scopes: ["api"] });
  addPatSeed(state, { token: "sim-forge-pat-root", user: "root", name: "admin", scopes: ["api"] });
}
