import { z } from 'zod';
import type { Mask } from '../mask/Mask';
import type { ResponseCaptureClass } from '../response/ResponseCapture';
import type { ResolvedResponseType } from './types';
import { FullMask } from '../mask/FullMask';
import { PartialMask } from '../mask/PartialMask';
import { GlobError, compileGlob, type Glob } from '../util/glob';
import { guardCapture, guardMask } from './guardUserParts';

/*
 * The schema's rules for what a user hands over as code or text to compile: masks, capture classes and name
 * patterns. Each is checked and turned into what Probe runs in one step, so nothing downstream checks again.
 */

/** How toConfigError reads a broken rule: `whole` when the message already says what the value was. */
export interface RuleParams {
  rule: true;
  whole: boolean;
}

type Ctx = z.core.$RefinementCtx;

/** A value of the right type that breaks a rule: the error the user reads, ahead of any type mismatch. */
export function ruleBroken(ctx: Ctx, input: unknown, path: PropertyKey[], message: string, whole = true): void {
  ctx.issues.push({ code: 'custom', input, path, message, params: { rule: true, whole } satisfies RuleParams });
}

/** A `mask.inputs` entry: a plain name (whole-name rule, SecretNames) or a pattern tested against the name. */
export type InputRule = { name: string } | { pattern: RegExp };

/** A name made of these is a plain name (whole-name rule); any other string is a regular expression. */
const PLAIN_NAME = /^[A-Za-z0-9_-]+$/;

/**
 * A plain-name string is a name, normalised like the defaults; a RegExp, or a string with any other character
 * (`^pin$`, the form a JSON config can hold), is the user's own pattern (a string case-insensitively).
 */
export function toInputRule(input: string | RegExp, ctx: Ctx): InputRule {
  // The user's own RegExp is tested many times: a global or sticky flag would carry lastIndex between names.
  if (input instanceof RegExp) return { pattern: new RegExp(input.source, input.flags.replace(/[gy]/g, '')) };
  if (PLAIN_NAME.test(input)) return { name: input };
  try {
    return { pattern: new RegExp(input, 'i') };
  } catch (error) {
    ruleBroken(ctx, input, [], `malformed regex ${JSON.stringify(input)}: ${(error as Error).message}`);
    return z.NEVER;
  }
}

/** `mask.headers` split into the global entries and those for the lens; `false` unmasks a default. */
export interface HeaderMasks {
  global: Map<string, Mask | false>;
  lens: Map<string, Mask | false>;
}

/** `mask.inputs` in any of its forms, split into the global rules and those for the lens. */
export interface InputRules {
  global: InputRule[];
  lens: InputRule[];
}

const BUILTIN_MASKS: Record<string, new () => Mask> = { FullMask, PartialMask };

function isBuiltinMask(mask: object): boolean {
  const proto = Object.getPrototypeOf(mask);
  return proto === FullMask.prototype || proto === PartialMask.prototype;
}

/** `mask.headers` entry → the mask it names (a built-in's name, a class, an instance); undefined when broken. */
export function toMask(spec: unknown, setting: string, ctx: Ctx, path: PropertyKey[]): Mask | undefined {
  if (typeof spec === 'string') {
    const Builtin = BUILTIN_MASKS[spec];
    if (Builtin) return new Builtin();
    ruleBroken(ctx, spec, path, `unknown mask ${JSON.stringify(spec)} (known: FullMask, PartialMask, or a class/object with mask(value))`);
    return undefined;
  }
  if (typeof spec === 'function') {
    const instance = new (spec as new () => Mask)();
    if (typeof instance.mask === 'function') return isBuiltinMask(instance) ? instance : guardMask(setting, instance);
    ruleBroken(ctx, spec, path, `${spec.name || 'class'} has no mask(value) method`);
    return undefined;
  }
  if (spec && typeof spec === 'object' && typeof (spec as Mask).mask === 'function')
    return isBuiltinMask(spec) ? (spec as Mask) : guardMask(setting, spec as Mask);
  ruleBroken(ctx, spec, path, 'expected FullMask, PartialMask or an object with mask(value)', false);
  return undefined;
}

/** A `response_types` entry → its compiled content-type matcher and the guarded capture class. */
export function toResponseType(pattern: string, capture: unknown, setting: string, ctx: Ctx): ResolvedResponseType | undefined {
  const user = capture as ResponseCaptureClass;
  if (typeof user !== 'function' || !user.name) {
    ruleBroken(ctx, capture, [pattern], 'expected a capture class with a static name');
    return undefined;
  }
  if (typeof user.capture !== 'function' && typeof user.prototype?.capture !== 'function') {
    ruleBroken(ctx, capture, [pattern], `${user.name} has no capture() method`);
    return undefined;
  }
  const matcher = toGlob(pattern, ctx, [pattern], { ignoreCase: true });
  return matcher && { pattern, matcher, capture: guardCapture(setting, user) };
}

/** A glob setting compiled, or the issue saying why it cannot be (too many `?`). */
export function toGlob(pattern: string, ctx: Ctx, path: PropertyKey[], options: { ignoreCase?: boolean } = {}): Glob | undefined {
  try {
    return compileGlob(pattern, options);
  } catch (error) {
    if (!(error instanceof GlobError)) throw error;
    ruleBroken(ctx, pattern, path, error.message);
    return undefined;
  }
}
