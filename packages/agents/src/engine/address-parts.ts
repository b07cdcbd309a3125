// Minimal `<provider>.<kind>["<name>"]` handling for state commands.
import { KINDS, type Kind, PROVIDER_NAMES, type ProviderName } from "../providers/types.js";
import { StateError } from "../state/types.js";

export interface AddressParts {
  provider: ProviderName;
  kind: Kind;
  name: string;
}

const ADDRESS = /^([a-z_]+)\.([a-z_]+)\["((?:[^"\\]|\\.)+)"\]$/;

export function parseAddressParts(address: string): AddressParts {
  const match = ADDRESS.exec(address);
  if (!match)
    throw new StateError(
      `"${address}" is not a resource address; expected <provider>.<kind>["<name>"], e.g. provider_c.agents["writer"]`,
    );
  const [, provider, kind, name] = match;
  if (!(PROVIDER_NAMES as readonly string[]).includes(provider!))
    throw new StateError(`${address}: unknown provider ${provider}`);
  if (!(KINDS as readonly string[]).includes(kind!)) throw new StateError(`${address}: unknown kind ${kind}`);
  return { provider: provider as ProviderName, kind: kind as Kind, name: name!.replace(/\\(.)/g, "$1") };
}

export function formatAddressParts(parts: AddressParts): string {
  return `${parts.provider}.${parts.kind}["${parts.name.replace(/(["\\])/g, "\\$1")}"]`;
}
