/**
 * Links that open a file at a line in the developer's editor, by the URL schemes editors register (as Vite's and
 * Next's error overlays do): `PROBE_EDITOR` names one (`vscode`, the default) or gives a template with `{path}`
 * and `{line}`. A template whose scheme could run script in the page (`javascript:`, `data:`) is refused.
 */
export const EDITORS: Record<string, string> = {
  vscode: 'vscode://file{path}:{line}',
  'vscode-insiders': 'vscode-insiders://file{path}:{line}',
  cursor: 'cursor://file{path}:{line}',
  windsurf: 'windsurf://file{path}:{line}',
  zed: 'zed://file{path}:{line}',
  idea: 'idea://open?file={path}&line={line}',
  webstorm: 'webstorm://open?file={path}&line={line}',
  sublime: 'subl://open?url=file://{path}&line={line}',
};

/** The link template for a `PROBE_EDITOR` value, or null when it names none (`none` turns links off). */
export function editorTemplate(value: string | undefined): string | null {
  const name = (value ?? 'vscode').trim();
  if (name === '' || name === 'none') return null;
  if (EDITORS[name]) return EDITORS[name]!;
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(name)?.[1]?.toLowerCase();
  if (!scheme || ['javascript', 'data', 'vbscript', 'http', 'https', 'blob'].includes(scheme) || !name.includes('{path}')) return null;
  return name;
}

/** The link for one file and line; the path is URL-encoded part by part so no recorded text changes the URL's shape. */
export function editorHref(template: string, absolutePath: string, line: number): string {
  const encodedPath = absolutePath.split('/').map(encodeURIComponent).join('/');
  return template.replaceAll('{path}', encodedPath).replaceAll('{line}', String(Math.max(1, Math.trunc(line))));
}
