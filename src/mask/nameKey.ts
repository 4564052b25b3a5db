/**
 * The words of a name, lower-case, joined by `_`: `apiKey`, `API-KEY`, `Api_Key` and `api key` give
 * `api_key`; `APIKey` gives `api_key`, `X-Amz-Signature` `x_amz_signature`. Any ASCII character that is
 * not a letter or digit separates words, as does a lower-case letter or digit followed by an upper-case
 * one, or the last capital of a run followed by a lower-case letter.
 */
export function nameKey(name: string): string {
  let out = '';
  let split = false;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    const upper = c >= 65 && c <= 90;
    if (c < 128 && !upper && !isLowerOrDigit(c)) {
      split = out.length > 0;
      continue;
    }
    if (upper && out.length > 0 && !split) {
      const prev = name.charCodeAt(i - 1);
      if (isLowerOrDigit(prev) || (prev >= 65 && prev <= 90 && isLower(name.charCodeAt(i + 1)))) split = true;
    }
    if (split) {
      out += '_';
      split = false;
    }
    out += upper ? String.fromCharCode(c + 32) : c < 128 ? name[i] : name[i]!.toLowerCase();
  }
  return out;
}

function isLower(c: number): boolean {
  return c >= 97 && c <= 122;
}

function isLowerOrDigit(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 48 && c <= 57);
}
