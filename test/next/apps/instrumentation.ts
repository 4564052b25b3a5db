// Copied into the app root by test/next for its instrumentation.ts variant only: Probe started from Next's
// instrumentation hook instead of the NODE_OPTIONS preload, exactly as the README's "With Next.js" shows.
export async function register() {
  if (process.env.NEXT_RUNTIME === 'nodejs') {
    const { start } = await import('probe');
    start();
  }
}
