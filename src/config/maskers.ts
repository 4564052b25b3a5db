import type { Mask } from '../mask/Mask';
import { Masker } from '../mask/Masker';
import { SecretNames, type NamePattern } from '../mask/SecretNames';
import { guardPattern } from './guardUserParts';
import { DEFAULT_INPUTS, defaultHeaderMasks, defaultSecretWords } from './defaults';
import type { HeaderMasks, InputRule, InputRules } from './userParts';

/**
 * The two maskers of a config: the global one (the incoming request section) and the HTTP lens's, which adds
 * the `HttpClientLens` entries over the global ones. The file's masks are already validated by the schema.
 */
export function buildMaskers(mask: { headers?: HeaderMasks; inputs?: InputRules } | undefined): { global: Masker; lens: Masker } {
  const headerGlobal = defaultHeaderMasks();
  // `false` also keeps the word rule off that header (SecretWords masks `x-session-token` without a listing).
  const unmaskedGlobal = new Set<string>();
  for (const [name, maskOf] of mask?.headers?.global ?? []) setMask(headerGlobal, unmaskedGlobal, name, maskOf);
  const headerForLens = new Map(headerGlobal);
  const unmaskedForLens = new Set(unmaskedGlobal);
  for (const [name, maskOf] of mask?.headers?.lens ?? []) setMask(headerForLens, unmaskedForLens, name, maskOf);

  const globalInputs = splitRules(mask?.inputs?.global ?? [], { names: [...DEFAULT_INPUTS], patterns: [] });
  const lensInputs = splitRules(mask?.inputs?.lens ?? [], { names: [...globalInputs.names], patterns: [...globalInputs.patterns] });
  const words = defaultSecretWords();
  const secretHeaders = new SecretNames(DEFAULT_INPUTS, [], words);
  return {
    global: new Masker(headerGlobal, new SecretNames(globalInputs.names, globalInputs.patterns, words), secretHeaders, unmaskedGlobal),
    lens: new Masker(headerForLens, new SecretNames(lensInputs.names, lensInputs.patterns, words), secretHeaders, unmaskedForLens),
  };
}

function setMask(masks: Map<string, Mask>, unmasked: Set<string>, name: string, mask: Mask | false): void {
  if (mask === false) {
    masks.delete(name);
    unmasked.add(name);
  } else {
    masks.set(name, mask);
    unmasked.delete(name);
  }
}

/** A user's pattern runs off the calling thread under a deadline (guardPattern): it may backtrack without end. */
function splitRules(rules: InputRule[], into: { names: string[]; patterns: NamePattern[] }): { names: string[]; patterns: NamePattern[] } {
  for (const rule of rules) {
    if ('name' in rule) into.names.push(rule.name);
    else into.patterns.push(guardPattern('mask.inputs', rule.pattern));
  }
  return into;
}
