import type { Capture } from '../capture/types';
import type { RowCache } from '../builder/RowCache';
import { threadWork } from '../util/threadWork';

/** What JSON.stringify writes for the placeholder standing for the rows: the capture's last member ends it. */
const TAIL = '"http":0}}';

/**
 * A capture's JSON, its HTTP rows each serialised apart and joined: with a RowCache, the rows it built keep their
 * text, so a long unit written every second serialises each row once (the rest of the capture is small: head,
 * summary and spans). The same text JSON.stringify(capture) gives: `sections` is the capture's last member and
 * `http` the last of `sections` (buildCapture makes them so); any other shape is serialised whole.
 */
export function captureText(capture: Capture, rows?: RowCache): string {
  threadWork.serialised++;
  const http = capture.sections?.http;
  if (!rows || !http) return JSON.stringify(capture);
  const head = JSON.stringify({ ...capture, sections: { ...capture.sections, http: 0 } });
  if (!head.endsWith(TAIL)) return JSON.stringify(capture);
  let text = head.slice(0, -TAIL.length + '"http":'.length) + '[';
  for (let i = 0; i < http.length; i++) text += (i ? ',' : '') + rows.textOf(http[i]!);
  return text + ']}}';
}
