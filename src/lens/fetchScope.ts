import type { FetchCall } from './FetchCall';
import { contextScope } from '../runtime/scope';

/** The app-level `fetch()` call in progress, so its redirect hops fold into one row. */
export const fetchScope = contextScope<FetchCall>('probe.fetch');
