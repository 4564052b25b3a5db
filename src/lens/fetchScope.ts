import type { CallRecord } from '../runtime/CallRecord';
import { contextScope } from '../runtime/scope';

/** The app-level `fetch()` call in progress, so its redirect hops fold into one row. */
export const fetchScope = contextScope<CallRecord>('probe.fetch');
