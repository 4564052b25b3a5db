import type { RouteCell } from './harness';

const OTEL = {
  '@opentelemetry/api': '1.9.1',
  '@opentelemetry/sdk-trace-node': '2.12.0',
  '@opentelemetry/sdk-trace-base': '2.12.0',
  '@opentelemetry/instrumentation': '0.223.0',
  '@opentelemetry/instrumentation-http': '0.223.0',
  '@opentelemetry/instrumentation-express': '0.71.1',
};

export const EXPRESS: RouteCell[] = [
  // Express 4: Probe's ledger patches of its router (it has no diagnostics channel).
  { name: 'express-4', dependencies: { express: '4.22.3' }, app: 'express.cjs', ledger: 'express4' },
  // Express 5 on router 2.3: the express.router.request tracing channel, CommonJS and ESM.
  { name: 'express-5', dependencies: { express: '5.3.0' }, overrides: { router: '2.3.0' }, app: 'express.cjs' },
  { name: 'express-5-esm', dependencies: { express: '5.3.0' }, overrides: { router: '2.3.0' }, app: 'express.mjs' },
  // Express 5 on router 2.2 (no channel yet): the patches again.
  { name: 'express-5-router-2.2', dependencies: { express: '5.3.0' }, overrides: { router: '2.2.0' }, app: 'express.cjs', ledger: 'router22' },
  // Beside the app's own OTel setup with instrumentation-express: same template, the app's spans unchanged.
  { name: 'express-4-otel', dependencies: { express: '4.22.3', ...OTEL }, app: 'express.cjs', otel: true },
  { name: 'express-5-otel', dependencies: { express: '5.3.0', ...OTEL }, overrides: { router: '2.3.0' }, app: 'express.cjs', otel: true },
];

export const FASTIFY: RouteCell[] = [
  { name: 'fastify-4', dependencies: { fastify: '4.29.1' }, app: 'fastify.cjs' },
  { name: 'fastify-5', dependencies: { fastify: '5.12.8' }, app: 'fastify.cjs' },
  { name: 'fastify-5-esm', dependencies: { fastify: '5.12.8' }, app: 'fastify.mjs' },
];

export const KOA_HONO: RouteCell[] = [
  { name: 'koa-2', dependencies: { koa: '2.16.4', '@koa/router': '12.0.2' }, app: 'koa.cjs' },
  { name: 'koa-3', dependencies: { koa: '3.3.0', '@koa/router': '15.7.0' }, app: 'koa.cjs', ledger: 'koa' },
  { name: 'hono-4', dependencies: { hono: '4.13.19', '@hono/node-server': '1.19.19' }, app: 'hono.cjs', ledger: 'hono' },
];

const NEST = {
  '@nestjs/core': '12.5.1',
  '@nestjs/common': '12.5.1',
  '@nestjs/platform-express': '12.5.1',
  '@nestjs/platform-fastify': '12.5.0',
  'reflect-metadata': '0.2.2',
  rxjs: '7.8.2',
};

export const NESTJS: RouteCell[] = [
  { name: 'nest-12-express', dependencies: NEST, app: 'nest.cjs' },
  { name: 'nest-12-fastify', dependencies: NEST, app: 'nest.cjs', args: ['fastify'] },
];

export const HAPI: RouteCell[] = [
  // Hapi writes its parameters in braces; the route is the one its request matched, a plugin's prefix included.
  { name: 'hapi-21', dependencies: { '@hapi/hapi': '21.4.13' }, app: 'hapi.cjs', route: '/api/users/{id}', ledger: 'hapi' },
  { name: 'hapi-21-esm', dependencies: { '@hapi/hapi': '21.4.13' }, app: 'hapi.mjs', route: '/api/users/{id}' },
  { name: 'hapi-20', dependencies: { '@hapi/hapi': '20.3.0' }, app: 'hapi.cjs', route: '/api/users/{id}' },
];
