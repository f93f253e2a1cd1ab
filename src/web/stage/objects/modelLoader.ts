/**
 * 3D media from their preloaded blobs (never the network): glTF 2.0 (`.glb`, or `.gltf` with its side files, which
 * the media loader fetched next to it) through three.js's GLTFLoader with the meshopt decoder
 * (EXT_meshopt_compression; KHR_mesh_quantization is read natively), and PLY (binary or ASCII) through PLYLoader:
 * with faces a mesh, without faces a point cloud with its per-point colour.
 */
import { Box3, BufferGeometry, Group, LoadingManager, Mesh, MeshStandardMaterial, Points, PointsMaterial, Sphere, Vector3 } from 'three';
import type { Object3D } from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { PLYLoader } from 'three/examples/jsm/loaders/PLYLoader.js';
import { MeshoptDecoder } from 'three/examples/jsm/libs/meshopt_decoder.module.js';
import { StageMediaError } from '../errors';
import type { LoadedMedia } from '../types';

export interface LoadedModel {
  name: string;
  /** The object, centred nowhere in particular: `center` and `radius` say where it is. */
  root: Object3D;
  /** Point clouds get their point size set per view (screen or world units). */
  points: PointsMaterial[];
  /** Bounding sphere of the whole object (world units, after the file's node transforms). */
  center: Vector3;
  radius: number;
  triangles: number;
  pointCount: number;
  release(): void;
}

export async function loadModel(loaded: LoadedMedia): Promise<LoadedModel> {
  const ext = loaded.name.slice(loaded.name.lastIndexOf('.') + 1).toLowerCase();
  let root: Object3D;
  const urls: string[] = [];
  try {
    if (ext === 'ply') root = plyObject(new PLYLoader().parse(await loaded.blob.arrayBuffer()));
    else root = await parseGltf(loaded, ext === 'gltf', urls);
  } catch (error) {
    throw new StageMediaError(loaded.name, 'model', 'decode', error instanceof Error ? error.message : String(error));
  } finally {
    urls.forEach((url) => URL.revokeObjectURL(url));
  }
  root.updateMatrixWorld(true);
  const box = new Box3().setFromObject(root, true);
  if (box.isEmpty()) {
    disposeObject(root);
    throw new StageMediaError(loaded.name, 'model', 'decode', 'the file has no geometry');
  }
  const sphere = box.getBoundingSphere(new Sphere());
  let triangles = 0;
  let pointCount = 0;
  const points: PointsMaterial[] = [];
  root.traverse((node) => {
    const geometry = (node as Mesh).geometry as BufferGeometry | undefined;
    if (!geometry) return;
    const count = geometry.index ? geometry.index.count : (geometry.getAttribute('position')?.count ?? 0);
    if ((node as Mesh).isMesh) triangles += count / 3;
    if ((node as Points).isPoints) {
      pointCount += count;
      const material = (node as Points).material;
      for (const m of Array.isArray(material) ? material : [material]) if (m instanceof PointsMaterial) points.push(m);
    }
  });
  return {
    name: loaded.name,
    root,
    points,
    center: sphere.center,
    radius: Math.max(sphere.radius, 1e-6),
    triangles: Math.round(triangles),
    pointCount,
    release: () => disposeObject(root),
  };
}

async function parseGltf(loaded: LoadedMedia, separate: boolean, urls: string[]): Promise<Object3D> {
  const manager = new LoadingManager();
  if (separate) {
    // A .gltf names its buffers and images by relative URI: each is served from the blob the media loader fetched.
    const byUri = new Map<string, string>();
    for (const [uri, blob] of loaded.files ?? []) {
      const url = URL.createObjectURL(blob);
      urls.push(url);
      byUri.set(uri, url);
    }
    manager.setURLModifier((url) => {
      if (/^(data|blob):/.test(url)) return url;
      const found = byUri.get(decodeURIComponent(url.replace(/^\.\//, '')));
      if (!found) throw new Error(`side file ${url} of ${loaded.name} was not loaded`);
      return found;
    });
  }
  const loader = new GLTFLoader(manager).setMeshoptDecoder(MeshoptDecoder);
  const data = separate ? await loaded.blob.text() : await loaded.blob.arrayBuffer();
  const gltf = await loader.parseAsync(data, '');
  const scene = gltf.scene ?? gltf.scenes[0];
  if (!scene) throw new Error('the glTF file has no scene');
  return scene;
}

/** A PLY: faces make a lit mesh (normals computed when the file has none), no faces a point cloud. */
function plyObject(geometry: BufferGeometry): Object3D {
  const colored = geometry.hasAttribute('color');
  const group = new Group();
  if (geometry.index !== null && geometry.index.count > 0) {
    if (!geometry.hasAttribute('normal')) geometry.computeVertexNormals();
    group.add(new Mesh(geometry, new MeshStandardMaterial({ vertexColors: colored, color: colored ? 0xffffff : 0xbbbbbb, roughness: 0.8 })));
  } else {
    group.add(new Points(geometry, new PointsMaterial({ vertexColors: colored, color: colored ? 0xffffff : 0xbbbbbb, sizeAttenuation: false })));
  }
  return group;
}

function disposeObject(root: Object3D): void {
  root.traverse((node) => {
    const mesh = node as Mesh;
    mesh.geometry?.dispose();
    const materials = mesh.material ? (Array.isArray(mesh.material) ? mesh.material : [mesh.material]) : [];
    for (const material of materials) {
      for (const value of Object.values(material)) {
        if (!value || typeof value !== 'object' || !('isTexture' in value)) continue;
        const texture = value as { image?: unknown; dispose(): void };
        // GLTFLoader decodes images to ImageBitmaps, which hold their pixels until closed (dispose frees only the GPU copy).
        if (typeof ImageBitmap !== 'undefined' && texture.image instanceof ImageBitmap) texture.image.close();
        texture.dispose();
      }
      material.dispose();
    }
  });
}

