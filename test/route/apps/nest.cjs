// NestJS on Express (default) or Fastify (argument `fastify`): a controller at users/:id under the global prefix api.
require('reflect-metadata');
const { Controller, Get, Module, Param } = require('@nestjs/common');
const { NestFactory } = require('@nestjs/core');
const { exercise } = require('./client.cjs');

class UsersController {
  get(id) {
    return { id };
  }
}
Controller('users')(UsersController);
Param('id')(UsersController.prototype, 'get', 0);
Get(':id')(UsersController.prototype, 'get', Object.getOwnPropertyDescriptor(UsersController.prototype, 'get'));
class AppModule {}
Module({ controllers: [UsersController] })(AppModule);

(async () => {
  const options = { logger: false };
  const app = process.argv[2] === 'fastify'
    ? await NestFactory.create(AppModule, new (require('@nestjs/platform-fastify').FastifyAdapter)(), options)
    : await NestFactory.create(AppModule, options);
  app.setGlobalPrefix('api');
  await app.listen(0, '127.0.0.1');
  await exercise(app.getHttpServer().address().port);
  await app.close();
})();
