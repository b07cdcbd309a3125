// Public entry point; filled in by the package as it grows.
export const packageName = "forge-mcp";
