import { createHash, generateKeyPairSync, type KeyObject, sign } from "node:crypto";
import type { ForgeUser } from "../model/state.js";

/** GitLab's OpenID Connect id_token lifetime. */
const ID_TOKEN_TTL_SECONDS = 120;

interface SigningKey {
  privateKey: KeyObject;
  jwk: Record<string, unknown>;
  kid: string;
}

let key: SigningKey | undefined;

/**
 * One RSA key per process, made on first use: id tokens are rare in tests, and generating a key
 * on every `/_sim/reset` would slow all of them down.
 */
function signingKey(): SigningKey {
  if (!key) {
    const pair = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const pub = pair.publicKey.export({ format: "jwk" }) as { n: string; e: string };
    // RFC 7638 thumbprint as the key id.
    const kid = createHash("sha256")
      .update(JSON.stringify({ e: pub.e, kty: "RSA", n: pub.n }))
      .digest("base64url");
    key = {
      privateKey: pair.privateKey,
      jwk: { kty: "RSA", n: pub.n, e: pub.e, kid, use: "sig", alg: "RS256" },
      kid,
    };
  }
  return key;
}

export function jwks(): { keys: Record<string, unknown>[] } {
  return { keys: [signingKey().jwk] };
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

/** An RS256-signed id_token with the claims GitLab puts in one. */
export function idToken(input: {
  issuer: string;
  clientId: string;
  user: ForgeUser;
  nowSeconds: number;
  nonce?: string;
  scopes: string[];
}): string {
  const { user, issuer } = input;
  const k = signingKey();
  const claims: Record<string, unknown> = {
    iss: issuer,
    sub: String(user.id),
    aud: input.clientId,
    exp: input.nowSeconds + ID_TOKEN_TTL_SECONDS,
    iat: input.nowSeconds,
    auth_time: input.nowSeconds,
    sub_legacy: createHash("sha256").update(`sim-forge-${user.id}`).digest("hex"),
    ...(input.nonce ? { nonce: input.nonce } : {}),
  };
  if (input.scopes.includes("profile") || input.scopes.includes("openid")) {
    Object.assign(claims, {
      name: user.name,
      nickname: user.username,
      preferred_username: user.username,
      website: "",
      profile: `${issuer}/${user.username}`,
      picture: `${issuer}/uploads/-/system/user/avatar/${user.id}/avatar.png`,
      groups_direct: [],
    });
  }
  if (input.scopes.includes("email")) Object.assign(claims, { email: user.email, email_verified: true });
  const signingInput = `${b64({ typ: "JWT", kid: k.kid, alg: "RS256" })}.${b64(claims)}`;
  const signature = sign("sha256", Buffer.from(signingInput), k.privateKey).toString("base64url");
  return `${signingInput}.${signature}`;
}
