import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A real nginx (Debian's nginx-light) as the reverse proxy in front of Glimpse nodes, on a loopback port, for tests
 * and benchmarks: the same proxy settings as the deployment of docs/data-safety.md, without TLS (the client side is
 * loopback).
 */

const NGINX = ['/usr/sbin/nginx', '/usr/bin/nginx'].find((path) => existsSync(path)) ?? null;

/** The nginx binary, or null when it is not installed (`apt-get install -y nginx-light`). */
export const nginxBinary = (): string | null => NGINX;

export interface Nginx {
  url: string;
  port: number;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** The proxy part of docs/data-safety.md's nginx configuration, for upstream nodes `host:port`. */
export function proxyConfig(upstreams: string[], listen: string): string {
  // What both locations pass on: the client's address and scheme for TRUST_PROXY, keep-alive to the nodes.
  const forward = `proxy_pass http://glimpse;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto $scheme;`;
  return `
  upstream glimpse { ${upstreams.map((u) => `server ${u};`).join(' ')} keepalive 16; }
  server {
    listen ${listen};
    client_max_body_size 2100m;
    location / {
      ${forward}
      proxy_request_buffering off;
      proxy_read_timeout 3600s;
    }
    location ~ ^/console/api/jobs/[^/]+/events$ {
      ${forward}
      proxy_buffering off;
      proxy_read_timeout 1h;
    }
  }`;}

/** Starts nginx (foreground, its own prefix folder) proxying 127.0.0.1:port → the given upstreams. */
export async function startNginx(upstreams: string[]): Promise<Nginx> {
  if (!NGINX) throw new Error('nginx is not installed (apt-get install -y nginx-light)');
  const dir = await mkdtemp(join(tmpdir(), 'glimpse-nginx-'));
  const port = await freePort();
  const conf = `
daemon off;
master_process off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  ${proxyConfig(upstreams, `127.0.0.1:${port}`)}
}`;
  await writeFile(join(dir, 'nginx.conf'), conf);
  const test = spawnSync(NGINX, ['-t', '-p', dir, '-c', join(dir, 'nginx.conf')], { encoding: 'utf8' });
  if (test.status !== 0) throw new Error(`nginx refused its configuration: ${test.stderr}`);
  const child: ChildProcess = spawn(NGINX, ['-p', dir, '-c', join(dir, 'nginx.conf')], { stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`nginx exited: ${await readFile(join(dir, 'error.log'), 'utf8').catch(() => '')}`);
    const up = await fetch(`${url}/meta.json`).then(() => true, () => false);
    if (up) break;
    if (i > 100) throw new Error('nginx did not start');
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    port,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
