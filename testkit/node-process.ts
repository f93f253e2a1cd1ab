import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

/**
 * A Glimpse server in a process of its own (testkit/node-server.ts), for what one process cannot test on itself:
 * kill -9 and restarts, several nodes, benchmarks whose load must not share the server's event loop.
 */
export interface NodeProcess {
  url: string;
  pid: number;
  /** Stops it gracefully (closes its stdin) and resolves once it has exited. */
  stop(): Promise<void>;
}

export function startNode(env: NodeJS.ProcessEnv): Promise<NodeProcess> {
  const child = spawn('npx', ['tsx', 'testkit/node-server.ts'], { env: { ...process.env, ...env }, stdio: 'pipe' });
  child.stderr.pipe(process.stderr);
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', (line) => {
      const { url, pid } = JSON.parse(line) as { url: string; pid: number };
      resolve({ url, pid, stop: () => new Promise<void>((done) => (child.once('exit', () => done()), child.stdin.end())) });
    });
    child.once('exit', (code) => reject(new Error(`server exited (${code}) before listening`)));
  });
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Polls `check` every `everyMs` until it holds; throws after `ms`. */
export async function waitFor(check: () => Promise<boolean>, ms = 20_000, everyMs = 20): Promise<void> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, everyMs))) if (await check()) return;
  throw new Error('timed out waiting');
}
