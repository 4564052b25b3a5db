import { reactRouter } from '@react-router/dev/vite';
import { defineConfig } from 'vite';

// FRAMES_SOURCEMAP=1: server source maps on (`build.sourcemap`).
export default defineConfig({ plugins: [reactRouter()], build: { sourcemap: process.env.FRAMES_SOURCEMAP === '1' } });
