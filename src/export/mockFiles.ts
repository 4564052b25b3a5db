/** The mock formats `probe export` and the dashboard write. */
export type MockFormat = 'msw' | 'nock' | 'undici-snapshot';

/**
 * Each format's download: the file is named `probe-<capture id>` + `suffix`. Kept free of imports: the
 * dashboard's page names its links from it, the server its attachments.
 */
export const MOCK_FILES: Readonly<Record<MockFormat, { suffix: string; type: string; label: string }>> = {
  // An ES module (`import ... from 'msw'`), so .mjs whatever the project's package.json says.
  msw: { suffix: '.handlers.mjs', type: 'text/javascript; charset=utf-8', label: 'MSW' },
  nock: { suffix: '.nock.json', type: 'application/json; charset=utf-8', label: 'nock' },
  'undici-snapshot': { suffix: '.undici-snapshot.json', type: 'application/json; charset=utf-8', label: 'undici snapshot' },
};

export function isMockFormat(text: string): text is MockFormat {
  return Object.hasOwn(MOCK_FILES, text);
}
