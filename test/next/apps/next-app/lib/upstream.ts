/** The loopback upstream the test starts; every route calls it once. */
export const UPSTREAM = process.env.UPSTREAM ?? 'http://127.0.0.1:9';
