/**
 * Pure camera arithmetic of a 3D object on the stage (no three.js, no DOM): the turntable's poses as a function of
 * the pose index, the inspect camera's bounded orbit and zoom, and the camera placement fitted to the object's
 * bounds. Angles in degrees; `dist` is a multiple of the fitted distance (1 = the whole object in view).
 */
import type { ResolvedObjectOptions } from '../../../contract/objects';
import type { ClipTimeline } from '../clipCadence';

export interface CameraPose {
  /** Azimuth about the vertical axis, degrees; 0 looks at the object's front (+Z), not wrapped to [0, 360). */
  az: number;
  /** Elevation above the horizontal plane through the object's centre, degrees. */
  el: number;
  /** Distance as a multiple of the fitted distance. */
  dist: number;
}

/**
 * The size (CSS px) a 3D object reports to the layouts as its "natural size": a square drawn at most this large and
 * shrunk, like an image, to fit the window.
 */
export const MODEL_VIEW_PX = 1024;

/** Inspect: degrees of orbit per CSS pixel dragged (a drag across a 900 px view turns the object once). */
export const DRAG_DEGREES_PER_PX = 0.4;
/** Inspect: a wheel notch (deltaY 100 px) changes the distance by e^0.1 ≈ 10 %. */
export const WHEEL_ZOOM_PER_PX = 0.001;

type TurntableOptions = Pick<ResolvedObjectOptions, 'degreesPerSecond' | 'elevationDeg' | 'startAzimuthDeg' | 'turns' | 'frames' | 'posesPerSecond'>;

/** Poses in a turntable presentation: `frames`, else the poses of `turns` whole turns at the declared speed. */
export function turntablePoseCount(o: TurntableOptions): number {
  if (o.frames !== null) return o.frames;
  return Math.max(1, Math.round(((o.turns * 360) / o.degreesPerSecond) * o.posesPerSecond));
}

/**
 * The turntable as a clip of poses: pose k at k / posesPerSecond s after the onset. The stage plays it with the
 * video cadence (clipCadence.ts): pose k is first drawn at refresh ceil(t_k · R), so every display shows the same
 * pose at the same time, and a dropped display frame skips a pose that the record names.
 */
export function turntableTimeline(o: TurntableOptions): ClipTimeline {
  const count = turntablePoseCount(o);
  return { timestamps: Array.from({ length: count }, (_, k) => k / o.posesPerSecond), endTime: count / o.posesPerSecond };
}

/** Pose k of the turntable. */
export function turntablePose(o: TurntableOptions, k: number): CameraPose {
  return { az: o.startAzimuthDeg + (o.degreesPerSecond * k) / o.posesPerSecond, el: o.elevationDeg, dist: 1 };
}

type InspectOptions = Pick<ResolvedObjectOptions, 'startAzimuthDeg' | 'elevationDeg' | 'elevationRange' | 'zoom'>;

const clamp = (value: number, [min, max]: readonly [number, number]) => Math.min(max, Math.max(min, value));

/** The inspect camera's first pose: the declared start azimuth and elevation (within the bounds), fitted distance. */
export function inspectStartPose(o: InspectOptions): CameraPose {
  return { az: o.startAzimuthDeg, el: clamp(o.elevationDeg, o.elevationRange), dist: clamp(1, o.zoom) };
}

/** A drag of (dx, dy) CSS px: dragging right turns the object right (the camera goes left), down tilts it down. */
export function orbit(pose: CameraPose, dx: number, dy: number, o: InspectOptions): CameraPose {
  return { az: pose.az - dx * DRAG_DEGREES_PER_PX, el: clamp(pose.el + dy * DRAG_DEGREES_PER_PX, o.elevationRange), dist: pose.dist };
}

/** A wheel turn of deltaY px (positive: away from the user): zooms out, within the declared bounds. */
export function zoom(pose: CameraPose, deltaY: number, o: InspectOptions): CameraPose {
  return { ...pose, dist: clamp(pose.dist * Math.exp(deltaY * WHEEL_ZOOM_PER_PX), o.zoom) };
}

export function samePose(a: CameraPose, b: CameraPose): boolean {
  return a.az === b.az && a.el === b.el && a.dist === b.dist;
}

/**
 * Distance at which a sphere of `radius` fills the view: it touches the narrower of the two fields of view
 * (vertical `fovDeg`, horizontal from the aspect ratio width / height).
 */
export function fittedDistance(radius: number, fovDeg: number, aspect: number): number {
  const vertical = (fovDeg * Math.PI) / 180;
  const horizontal = 2 * Math.atan(Math.tan(vertical / 2) * aspect);
  return radius / Math.sin(Math.min(vertical, horizontal) / 2);
}

/** Camera position (relative to the object's centre, Y up) for a pose at a fitted distance. */
export function cameraOffset(pose: CameraPose, fitted: number): [number, number, number] {
  const az = (pose.az * Math.PI) / 180;
  const el = (pose.el * Math.PI) / 180;
  const d = pose.dist * fitted;
  return [d * Math.cos(el) * Math.sin(az), d * Math.sin(el), d * Math.cos(el) * Math.cos(az)];
}
