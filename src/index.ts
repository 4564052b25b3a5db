// The public API of `probe`, listed by hand.
export { start } from './runtime/start';
export type { ProbeHandle } from './runtime/start';
export { defineConfig } from './config/defineConfig';
export { pool, job, command, label, tag } from './runtime/api';
export { extendStore } from './store/registry';
export { FileStore } from './store/FileStore';
export { RedisStore } from './store/RedisStore';
export { FullMask } from './mask/FullMask';
export { PartialMask } from './mask/PartialMask';
export { JsonCapture } from './response/JsonCapture';
export { GraphqlCapture } from './response/GraphqlCapture';
export { ProbeConfigError } from './config/errors';
export type { Store, StoreApp, StoreFactory, StoreDriverConfig } from './store/Store';
export type { Capture, HttpRow, IndexRow, Summary, Timing, ExceptionInfo, Origin, CaptureSpan } from './capture/types';
export type { ProbeConfig, HttpClientLensOptions } from './config/types';
export type { Mask } from './mask/Mask';
export type { ResponseCaptureInput, ResponseCaptureOutput } from './response/ResponseCapture';
