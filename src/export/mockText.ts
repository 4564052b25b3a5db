import type { Capture, HttpRow } from '../capture/types';
import { rowsOfSection } from '../query/rows';
import { mockCallsOf, type MockCalls } from './mockCalls';
import { mswModule } from './msw';
import { nockDefinitions } from './nock';
import { undiciSnapshots } from './undiciSnapshot';
import type { MockFormat } from './mockFiles';
import { jsonText } from '../util/jsLiteral';

/** The file's text for `format`: the MSW module, or nock's definitions / undici's snapshots as indented JSON. */
export function mockText(format: MockFormat, mocks: MockCalls, source: string): string {
  if (format === 'msw') return mswModule(mocks, source);
  return jsonText(format === 'nock' ? nockDefinitions(mocks) : undiciSnapshots(mocks), 2) + '\n';
}

/** Every HTTP call of one capture, in order, as mocks (what `probe export <id>` takes without --where). */
export function captureMocks(capture: Capture): MockCalls {
  return mockCallsOf(rowsOfSection(capture.sections.http).map((row, index) => ({ capture, row: row as HttpRow, index })));
}

/** How the file names its source (a string in it, and the CLI's line): the same words for the CLI and the dashboard. */
export function captureSource(capture: Pick<Capture, 'id' | 'name'>): string {
  return `capture ${capture.id}, ${capture.name}`;
}
