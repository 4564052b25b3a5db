import { h } from 'preact';
import htm from 'htm';

/**
 * Tagged templates instead of JSX: no JSX transform to configure, and interpolated values are always
 * children or attribute values (text), never parsed markup.
 */
export const html = htm.bind(h);
