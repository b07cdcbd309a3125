import { type DestinationStream, type Logger, pino } from "pino";

/**
 * Structured logs with redaction as a second line of defence: code never passes tokens, codes or
 * secrets to the logger, and if one slipped into a known field it would be censored anyway.
 */
const REDACT_PATHS = [
  "access_token",
  "refresh_token",
  "token",
  "code",
  "code_verifier",
  "client_secret",
  "state",
  "authorization",
  "*.access_token",
  "*.refresh_token",
  "*.token",
  "*.code",
  "*.code_verifier",
  "*.client_secret",
  "*.state",
  "*.authorization",
  "req.headers.authorization",
  "req.headers.cookie",
];

export function createLogger(level: string, destination?: DestinationStream): Logger {
  const opts = {
    level,
    redact: { paths: REDACT_PATHS, censor: "[redacted]" },
    base: { service: "forge-mcp" },
  };
  // stdio transport owns stdout, so logs always go to stderr unless a destination is given.
  return destination ? pino(opts, destination) : pino(opts, pino.destination(2));
}
