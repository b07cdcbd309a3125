import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/** RFC 7636: verifier and S256 challenge are 43..128 chars of the unreserved set. */
const PKCE_VALUE = /^[A-Za-z0-9\-._~]{43,128}$/;

export function isValidChallenge(challenge: unknown): challenge is string {
  return typeof challenge === "string" && PKCE_VALUE.test(challenge);
}

function isValidVerifier(verifier: unknown): verifier is string {
  return typeof verifier === "string" && PKCE_VALUE.test(verifier);
}

export function s256(verifier: string): string {
  return createHash("sha256").update(verifier).digest("base64url");
}

export function newPkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(48).toString("base64url");
  return { verifier, challenge: s256(verifier) };
}

/** Constant-time check of a verifier against a stored S256 challenge. */
export function verifierMatches(verifier: unknown, challenge: string): boolean {
  if (!isValidVerifier(verifier)) return false;
  const a = Buffer.from(s256(verifier));
  const b = Buffer.from(challenge);
  return a.length === b.length && timingSafeEqual(a, b);
}

export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString("base64url");
}
