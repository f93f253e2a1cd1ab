/** 3D media in the flow: the camera-pose store posted as `views`, and a .gltf downloaded with its side files. */
import { describe, expect, it } from 'vitest';
import { MAX_CAMERA_SAMPLES } from '../../contract/objects.js';
import { gltfSideFiles } from './mediaLoader.js';
import { createViewsStore } from './viewsStore.js';

describe('views store', () => {
  it('keeps every drawn pose with its play, and posts nothing when no 3D object was drawn', () => {
    const store = createViewsStore();
    expect(store.getState().record()).toBeNull();
    store.getState().append(0, { mode: 'inspect', frame: 0, t: 10, az: 0, el: 15, dist: 1 });
    store.getState().append(1, { mode: 'inspect', frame: 3, t: 60, az: -4, el: 16, dist: 0.9 });
    expect(store.getState().record()).toEqual({
      v: 1,
      mode: 'inspect',
      samples: [
        { play: 0, frame: 0, t: 10, az: 0, el: 15, dist: 1 },
        { play: 1, frame: 3, t: 60, az: -4, el: 16, dist: 0.9 },
      ],
    });
    store.getState().reset();
    expect(store.getState().record()).toBeNull();
  });

  it('stops at the contract cap', () => {
    const store = createViewsStore();
    for (let i = 0; i < MAX_CAMERA_SAMPLES + 5; i++) store.getState().append(0, { mode: 'turntable', frame: i, t: i, az: i, el: 0, dist: 1 });
    expect(store.getState().count).toBe(MAX_CAMERA_SAMPLES);
    expect(store.getState().record()!.samples.at(-1)!.frame).toBe(MAX_CAMERA_SAMPLES - 1);
  });
});

describe('glTF side files', () => {
  it('are the relative URIs of buffers and images, decoded, once each; data: and absolute URIs are not fetched', () => {
    const json = {
      buffers: [{ uri: 'mesh.bin' }, { uri: 'data:application/octet-stream;base64,AAAA' }, { byteLength: 4 }],
      images: [{ uri: 'textures/base%20colour.png' }, { uri: 'mesh.bin' }, { uri: 'https://example.org/x.png' }, { bufferView: 2 }],
    };
    expect(gltfSideFiles(json)).toEqual(['mesh.bin', 'textures/base colour.png']);
    expect(gltfSideFiles({})).toEqual([]);
  });
});

describe('a .gltf download', () => {
  it('brings its side files from next to it and counts their bytes in its own entry', async () => {
    const { createServer } = await import('node:http');
    const { readFileSync, statSync } = await import('node:fs');
    const { loadMedia } = await import('./mediaLoader.js');
    const dir = 'tests/fixtures/objects';
    const server = createServer((request, response) => {
      const name = decodeURIComponent(request.url!.replace(/^\/resmedias\/job\//, ''));
      try {
        const body = readFileSync(`${dir}/${name}`);
        response.writeHead(200, { 'content-length': body.length }).end(body);
      } catch {
        response.writeHead(404).end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
      const whole = ['cube.gltf', 'cube.bin', 'cube.png'].reduce((sum, f) => sum + statSync(`${dir}/${f}`).size, 0);
      let last: { remainingBytes: number; finished: number } | null = null;
      const loaded = await loadMedia(['job/cube.gltf'], { base, sizes: [whole], onProgress: (f) => (last = f) });
      const gltf = loaded.get('job/cube.gltf')!;
      expect(gltf.kind).toBe('model');
      expect([...gltf.files!.keys()].sort()).toEqual(['cube.bin', 'cube.png']);
      expect(gltf.files!.get('cube.bin')!.size).toBe(statSync(`${dir}/cube.bin`).size);
      expect(last).toMatchObject({ remainingBytes: 0, finished: 1 });
    } finally {
      server.close();
    }
  });
});
