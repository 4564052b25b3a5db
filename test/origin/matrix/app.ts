/**
 * The app every setup runs, as TypeScript: types above the call move every compiled line, and the call carries
 * the oracle (an Error made on the call's own line, its first frame printed as the setup's stack mapping shows it).
 */
export const CLIENT_TS = `// A client module: the types above the call are erased by every transformer, moving its line.
interface Reply {
  ok: boolean;
}
type Maybe<T> = T | null;

export async function load(base: string): Promise<Maybe<Reply>> {
  const seen: string[] = [];
  const res: Response = await fetch(base + '/json', { headers: { 'x-seen': (seen.push(new Error('oracle').stack ?? ''), 'yes') } });
  console.log('ORACLE ' + (seen[0] ?? '').split('\\n')[1]);
  return (await res.json()) as Reply;
}
`;

export const MAIN_TS = `import http from 'node:http';
import { load } from './client';

const server = http.createServer((_req, res) => res.end('{"ok":true}'));
server.listen(0, '127.0.0.1', async () => {
  const { port } = server.address() as { port: number };
  const reply = await load(\`http://127.0.0.1:\${port}\`);
  console.log('REPLY ' + String(reply?.ok));
  server.close();
});
`;

export const TSCONFIG = JSON.stringify({
  compilerOptions: {
    target: 'es2022',
    module: 'commonjs',
    moduleResolution: 'node',
    strict: true,
    esModuleInterop: true,
    skipLibCheck: true,
    sourceMap: true,
    outDir: 'build/tsc',
    rootDir: 'src',
    types: ['node'],
  },
  include: ['src'],
});
