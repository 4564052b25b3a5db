import type { HttpRow } from '../capture/types';
import type { ResolvedHttpLens } from '../config/types';
import type { CallInput } from './input';
import { buildHttpRow } from './httpRow';
import { threadWork } from '../util/threadWork';

interface Built {
  lens: ResolvedHttpLens;
  unitStart: number;
  row: HttpRow;
  /** The row's JSON, made the first time a capture holding it is serialised. */
  text?: string;
}

/**
 * Rows of ended calls, built and serialised once for every version of their capture. A long unit (the process's
 * command capture) is stored each second while it runs and again at the end: each version rebuilt and
 * reserialised every row it kept (up to `max_rows`), which a script or poller paid per call as many times as
 * versions were written. A done call's input never changes (CallRecord.toInput gives the same object; the store's
 * thread keeps the one it was handed), and its row depends only on it, the unit's start and the lens, so the row
 * and its text are kept beside the input, weakly: they go with it. Only the built-in stores use it: their rows are
 * never handed to code that could change them (a custom driver's put gets rows of its own).
 */
export class RowCache {
  private readonly built = new WeakMap<CallInput, Built>();
  private readonly texts = new WeakMap<HttpRow, Built>();

  rowOf(call: CallInput, unitStart: number, unitEnd: number, lens: ResolvedHttpLens): HttpRow {
    // A call still running ends later: its row is built each time (a version holding it is never the last).
    if (call.end === null || call.end === undefined) return buildHttpRow(call, unitStart, unitEnd, lens);
    const known = this.built.get(call);
    if (known && known.lens === lens && known.unitStart === unitStart) return known.row;
    const built: Built = { lens, unitStart, row: buildHttpRow(call, unitStart, unitEnd, lens) };
    this.built.set(call, built);
    this.texts.set(built.row, built);
    return built.row;
  }

  /** A row changed after it was built (its endpoint's template learned from later calls): its JSON is made again. */
  changed(row: HttpRow): void {
    const built = this.texts.get(row);
    if (built) delete built.text;
  }

  /** A row's JSON: made once for a row this cache built, each time for any other. */
  textOf(row: HttpRow): string {
    const built = this.texts.get(row);
    if (built?.text !== undefined) return built.text;
    threadWork.rowsSerialised++;
    const text = JSON.stringify(row);
    if (built) built.text = text;
    return text;
  }
}
