export { type Config, ConfigError, loadConfig } from "./config.js";
export { createLogger } from "./logger.js";
export { createServer, type ForgeMcpServer, listen } from "./server.js";
