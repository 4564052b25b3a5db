import type { MaskSpec } from '../mask/Mask';
import type { Masker } from '../mask/Masker';
import type { ResponseCaptureClass } from '../response/ResponseCapture';
import type { Store } from '../capture/Store';
import type { Glob } from '../util/glob';
import type { Logger } from '../util/logger';

export type InputPattern = string | RegExp;

/** Options of the HTTP client lens (`lenses.HttpClientLens`). */
export interface HttpClientLensOptions {
  /** Also keep `request_body`, and `response_body` when no capture handled the response. */
  bodies?: boolean;
  /** Cap on a kept body, in bytes. */
  max_body_bytes?: number;
  /** Rows kept per capture; totals still count every call. */
  max_rows?: number;
  capture?: {
    /** Content-type pattern (`*` wildcards) → capture class. Replaces the default map. */
    response_types?: Record<string, ResponseCaptureClass>;
  };
}

/** The object a `probe.config.*` file exports (all optional). */
export interface ProbeConfig {
  enabled?: boolean;
  /** Name written to `meta.service`; defaults to the app's package name. */
  service?: string;
  storage?: {
    driver?: string;
    limit?: number;
    file?: { path?: string };
    redis?: { url?: string; prefix?: string; ttl?: number };
    [driver: string]: unknown;
  };
  lenses?: {
    HttpClientLens?: boolean | HttpClientLensOptions;
  };
  mask?: {
    /** Header name → mask; key `HttpClientLens` holds entries for that lens only. `false` unmasks a default. */
    headers?: Record<string, MaskSpec | false | Record<string, MaskSpec | false>>;
    /** Field/query names (whole names, any case style) or patterns (RegExp); an `{HttpClientLens: [...]}` element (or object form) is for that lens only. */
    inputs?: Array<InputPattern | { HttpClientLens?: InputPattern[] }> | { '*'?: InputPattern[]; HttpClientLens?: InputPattern[] };
  };
  origin?: { enabled?: boolean };
  sampling?: {
    /** Share of root units recorded, 0 to 1 (`PROBE_SAMPLE_RATE`); default 1. */
    rate?: number;
    /** Ceiling on captures started per second per process; default none. */
    max_per_second?: number;
  };
  background?: {
    /** Seconds a window of the process's command capture spans before the next one starts; default 300. */
    window_seconds?: number;
  };
  findings?: {
    /** Calls in a row to one endpoint that a finding calls an N+1 (at least 2); default 5. */
    n_plus_one?: number;
  };
  /** `probe check` (docs/snapshots.md). */
  snapshots?: {
    /** Hosts a test may call: `loopback`, `private`, host names, `*.suffix`; default loopback and private. */
    hosts?: string[];
    /** Request headers a snapshot keeps; default accept, authorization, content-type. */
    headers?: string[];
    /** JSON paths (`$.created_at`, `$.items[*].id`) and header names left out of snapshots. */
    ignore?: string[];
    /** `values` (default) keeps body values; `shapes` keeps each value's type. */
    bodies?: 'values' | 'shapes';
  };
  /** Capture names kept out of recording: globs (`GET /health`, `scripts/seed.js*`) or RegExps. */
  except?: Array<string | RegExp>;
  /** Called before any store is made: the place for `probe.extendStore(...)`. */
  register?: (probe: RegisterApi) => void;
}

export interface RegisterApi {
  extendStore(name: string, factory: StoreFactory): void;
}

export interface ResolvedResponseType {
  pattern: string;
  matcher: Glob;
  capture: ResponseCaptureClass;
}

export interface ResolvedHttpLens {
  readonly bodies: boolean;
  readonly max_body_bytes: number;
  readonly max_rows: number;
  readonly response_types: readonly ResolvedResponseType[];
  /** Global masks merged with the `HttpClientLens` entries. */
  readonly masker: Masker;
}

/** The config every part of Probe reads: defaults, file and environment merged, validated, frozen. */
export interface ResolvedConfig {
  readonly root: string;
  readonly configFile: string | null;
  readonly enabled: boolean;
  readonly service: string;
  readonly storage: {
    readonly driver: string;
    readonly limit: number;
    /** Test captures the file store keeps, apart from `limit` (see FileStore). */
    readonly test_limit: number;
    readonly file: { readonly path: string };
    readonly redis: { readonly url: string; readonly prefix: string; readonly ttl: number };
    readonly [driver: string]: unknown;
  };
  /** Null when the lens is turned off. */
  readonly http: ResolvedHttpLens | null;
  /** Global masks (used for the incoming request section). */
  readonly masker: Masker;
  readonly origin: { readonly enabled: boolean };
  /** `maxPerSecond` is null when there is no ceiling. */
  readonly sampling: { readonly rate: number; readonly maxPerSecond: number | null };
  /** How long one window of the process's command capture spans (see runtime/BackgroundTicker). */
  readonly background: { readonly windowMs: number };
  /** Settings of the findings computed when a capture is read. */
  readonly findings: { readonly nPlusOne: number };
  /** `probe check`'s settings, as given (names lower-cased). */
  readonly snapshots: {
    readonly hosts: readonly string[];
    readonly headers: readonly string[];
    readonly ignore: readonly string[];
    readonly bodies: 'values' | 'shapes';
  };
  /** Globs compiled to linear matchers; RegExps as the user wrote them. */
  readonly except: ReadonlyArray<RegExp | Glob>;
  readonly register: ((probe: RegisterApi) => void) | null;
}

// The store factory types live here, beside the config they are given: a factory gets the resolved config, and
// the config's register() hook registers factories, so in two files they would import each other.
/** What a store factory is given about the app (`app` is `{root, config, logger}`). */
export interface StoreApp {
  root: string;
  config: ResolvedConfig;
  logger: Logger;
}

/** `storage[name]` with `limit` added. */
export type StoreDriverConfig = Record<string, unknown> & { limit: number };

export type StoreFactory = (app: StoreApp, config: StoreDriverConfig) => Store;
