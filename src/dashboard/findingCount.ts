import type { FindingKind } from '../findings/Finding';

/** One capture's findings as the captures list shows them (`/api/findings`). */
export interface FindingCount {
  count: number;
  kinds: FindingKind[];
}
