export function playgroundConfig(providers: string, count: number): string;
