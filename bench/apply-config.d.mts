/** The wide provider_c project the apply benches and the plan-from-lists test share. */
export function applyConfig(baseUrl: string, perKind: number): string;
