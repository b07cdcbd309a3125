// The dialect's part of ownership metadata: the providers' limits on metadata maps, which
// common/ownership.ts's withOwnership checks when it is given them.
import type { MetadataLimits } from "../common/ownership.js";

/** At most 16 pairs, keys ≤ 64 and values ≤ 512 characters (both providers). */
export const METADATA_LIMITS: MetadataLimits = { pairs: 16, keyLength: 64, valueLength: 512 };
