import type { ResponseCaptureResult } from '../capture/types';
import type { Masker } from '../mask/Masker';
import type { ScanStats } from '../mask/credentialValues';

/** How jsonBodyCapture went: for the tests that hold both paths to the same result. */
export interface JsonBodyOptions {
  /** False: always parse and mask (the slow path), as if the pre-scan had found something. */
  prescan?: boolean;
  stats?: ScanStats;
}

/**
 * The built-in JSON capture of a JSON body (the content type says JSON), stored once (`cards_from_raw`: the
 * readers parse the cards back from `raw`, capture/readableCapture.ts):
 *
 * - nothing to mask (the pre-scan says so: mask/jsonPrescan.ts): the text as it came, unparsed;
 * - it parses and masking changes it: the masked value, serialised (what `raw` was before);
 * - it parses and masking changes nothing: the text as it came (the pre-scan erred towards parsing);
 * - it does not parse: the text masked as text, as `cards: null` beside it when masking changed it (masked
 *   text may parse where the body did not), else the text as it came.
 *
 * Either path stores the same: the pre-scan only decides whether the parse is needed to know.
 */
export function jsonBodyCapture(name: string, text: string, masker: Masker, options: JsonBodyOptions = {}): ResponseCaptureResult {
  const asItCame: ResponseCaptureResult = { capture: name, raw: text, cards_from_raw: true };
  if (options.prescan !== false && !masker.jsonMayNeedMasking(text, options.stats)) return asItCame;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Not JSON after all: its secret-named pairs are masked as text, never kept as sent.
    const masked = masker.text(text);
    return masked === text ? asItCame : { capture: name, cards: null, raw: masked };
  }
  const { value, changed } = masker.maskValueChanged(parsed);
  return changed ? { capture: name, raw: JSON.stringify(value), cards_from_raw: true } : asItCame;
}

/**
 * A capture's result stored once when its raw body is its cards serialised (a GraphqlCapture or a user's
 * capture of a JSON body): readers get both back from `raw`.
 */
export function storedOnce(result: ResponseCaptureResult): ResponseCaptureResult {
  if (typeof result.raw !== 'string') return result;
  let cardsText: string | undefined;
  try {
    cardsText = JSON.stringify(result.cards) as string | undefined;
  } catch {
    return result; // cards JSON cannot hold (a BigInt): the store will say so
  }
  return cardsText === result.raw ? { capture: result.capture, raw: result.raw, cards_from_raw: true } : result;
}
