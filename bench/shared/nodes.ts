import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';

/**
 * Glimpse server processes for the benchmarks that run several (testkit/node-server.ts): each listens on a free
 * port, with the environment given (DATABASE_URL, MEDIA_DIR, WEB_DIR, limits), and stops when its stdin closes.
 */
export interface Node {
  url: string;
  pid: number;
  child: ChildProcessWithoutNullStreams;
}

export function startNode(env: NodeJS.ProcessEnv, nodeArgs: string[] = []): Promise<Node> {
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', 'testkit/node-server.ts'], { env: { ...process.env, ...env }, stdio: 'pipe' });
  child.stderr.pipe(process.stderr);
  return new Promise((done, fail) => {
    createInterface({ input: child.stdout }).once('line', (line) => done({ url: (JSON.parse(line) as { url: string }).url, pid: child.pid!, child }));
    child.once('exit', (code) => fail(new Error(`node exited (${code}) before listening`)));
  });
}

export const stopNode = (n: Node) => new Promise<void>((r) => (n.child.once('exit', () => r()), n.child.stdin.end()));
