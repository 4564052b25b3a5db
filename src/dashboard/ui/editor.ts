import type { Origin } from '../../capture/types';
import { editorHref } from '../editorLinks';

/** The app root and editor template the server said (`/api/info`), set once the page has them. */
let current: { root: string; template: string } | null = null;

export function setEditor(root: string | undefined, template: string | null | undefined): void {
  current = root && template ? { root: root.replace(/\/+$/, ''), template } : null;
}

/** A link that opens the call's code line in the developer's editor, or null where there is none to open. */
export function originHref(origin: Pick<Origin, 'file' | 'line'>): string | null {
  if (!current) return null;
  const absolute = origin.file.startsWith('/') ? origin.file : `${current.root}/${origin.file}`;
  return editorHref(current.template, absolute, origin.line);
}
