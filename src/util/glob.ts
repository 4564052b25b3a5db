/** `*` matches any run of characters, `?` one; everything else is literal. Anchored, case-sensitive unless told. */
export function globToRegExp(glob: string, flags = ''): RegExp {
  let source = '';
  for (const char of glob) {
    if (char === '*') source += '.*';
    else if (char === '?') source += '.';
    else source += char.replace(/[.+^${}()|[\]\\/]/g, '\\$&');
  }
  return new RegExp(`^${source}$`, flags);
}
