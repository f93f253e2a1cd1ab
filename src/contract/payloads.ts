import { Type, type Static } from '@sinclair/typebox';
import { MAX_CAMERA_SAMPLES } from './objects.js';

/**
 * Request bodies of SPEC §3/§7. Every object is closed (additionalProperties: false) and arrays are capped,
 * so the server answers 400 rather than stripping or coercing.
 */

const Id = Type.Integer({ minimum: 1, maximum: 2 ** 31 - 1 });
const Token = Type.String({ minLength: 16, maxLength: 128, pattern: '^[A-Za-z0-9_-]+$' });
const Time = Type.Number({ minimum: 0 });
const Size = Type.Object(
  { width: Type.Number({ minimum: 0 }), height: Type.Number({ minimum: 0 }) },
  { additionalProperties: false },
);
/** The window, screen and document sizes a page reports (SPEC §3 "Window size"; web/flow/windowInfo.ts). */
const WINDOW_SIZES = {
  inner: Size,
  outer: Size,
  screen: Size,
  available: Size,
  document: Size,
  zoom: Type.Number(),
  isfullScreen: Type.Boolean(),
};

export const BcheckBody = Type.Object(
  {
    b_name: Type.String({ maxLength: 200 }),
    b_version: Type.String({ maxLength: 200 }),
    b_os: Type.String({ maxLength: 200 }),
    screen_size: Type.String({ maxLength: 200 }),
  },
  { additionalProperties: false },
);
export type BcheckBody = Static<typeof BcheckBody>;

// --- Frame-timing records (docs/timing.md): what was asked and what the display showed --------

const Ms = Type.Number();
const Frames = Type.Integer({ minimum: 0, maximum: 10_000_000 });
const MaybeMs = Type.Union([Type.Number(), Type.Null()]);

const FrameAt = Type.Object({ frame: Frames, refresh: Frames }, { additionalProperties: false });
const FramesAt = Type.Object({ frame: Frames, refresh: Frames, refreshes: Frames }, { additionalProperties: false });
const MaybeFrames = Type.Union([Frames, Type.Null()]);

/**
 * What the stage drew of one video (stage/types.ts VideoFrameRecord). The element counters (presentedFrames, media
 * and display times) are what pages before the stage-clock player sent: still accepted, so a page loaded before an
 * upgrade loses no answer, but never read as the truth.
 */
export const VideoFrameRecord = Type.Object(
  {
    media: Type.String({ maxLength: 1000 }),
    timing: Type.Optional(Type.Union([Type.Literal('stage-clock'), Type.Literal('element-timed')])),
    frames: Type.Optional(MaybeFrames),
    drawnFrames: Type.Optional(Frames),
    skippedFrames: Type.Optional(MaybeFrames),
    repeatedFrames: Type.Optional(MaybeFrames),
    skips: Type.Optional(Type.Array(FrameAt, { maxItems: 1000 })),
    repeats: Type.Optional(Type.Array(FramesAt, { maxItems: 1000 })),
    late: Type.Optional(Type.Array(FramesAt, { maxItems: 1000 })),
    firstFrame: Type.Optional(MaybeFrames),
    firstOnsetMs: Type.Optional(MaybeMs),
    lastFrame: Type.Optional(MaybeFrames),
    lastOnsetMs: Type.Optional(MaybeMs),
    lastOffsetMs: Type.Optional(MaybeMs),
    presentedFrames: Type.Optional(Frames),
    firstMediaTime: Type.Optional(MaybeMs),
    lastMediaTime: Type.Optional(MaybeMs),
    firstExpectedDisplayTime: Type.Optional(MaybeMs),
    lastExpectedDisplayTime: Type.Optional(MaybeMs),
  },
  { additionalProperties: false },
);

/**
 * What the stage drew of a step's 3D objects (stage/types.ts ObjectFrameRecord): one camera for all of them; a
 * turntable counted as a clip of poses (frames = poses), inspect with frames/skipped/repeated null.
 */
export const ObjectFrameRecord = Type.Object(
  {
    media: Type.Array(Type.String({ maxLength: 1000 }), { maxItems: 16 }),
    mode: Type.Union([Type.Literal('turntable'), Type.Literal('inspect')]),
    posesPerSecond: Type.Union([Type.Number({ minimum: 0 }), Type.Null()]),
    frames: MaybeFrames,
    drawnFrames: Frames,
    skippedFrames: MaybeFrames,
    repeatedFrames: MaybeFrames,
    skips: Type.Optional(Type.Array(FrameAt, { maxItems: 1000 })),
    repeats: Type.Optional(Type.Array(FramesAt, { maxItems: 1000 })),
    late: Type.Optional(Type.Array(FramesAt, { maxItems: 1000 })),
    firstFrame: MaybeFrames,
    firstOnsetMs: MaybeMs,
    lastFrame: MaybeFrames,
    lastOnsetMs: MaybeMs,
    lastOffsetMs: MaybeMs,
  },
  { additionalProperties: false },
);

const DeviceRect = Type.Object(
  { x: Type.Number(), y: Type.Number(), width: Type.Number({ minimum: 0 }), height: Type.Number({ minimum: 0 }) },
  { additionalProperties: false },
);

/** How one media of a step was drawn (stage/types.ts DrawnItem). */
export const DrawnItem = Type.Object(
  {
    media: Type.String({ maxLength: 1000 }),
    scaling: Type.Union([Type.Literal('integer'), Type.Literal('native'), Type.Literal('fit')]),
    scale: Type.Number({ minimum: 0, maximum: 1000 }),
    filter: Type.Union([Type.Literal('nearest'), Type.Literal('linear')]),
    device: DeviceRect,
  },
  { additionalProperties: false },
);

/** What can stop the stage drawing mid-step (web stage/interruptions.ts StageInterruption). */
export const STAGE_INTERRUPTIONS = ['context-lost', 'hidden', 'display-changed', 'fullscreen-exit'] as const;

/** One presentation step as the stage timed it ("call on flip"; stage/types.ts PresentationRecord). */
export const PresentationRecord = Type.Object(
  {
    label: Type.String({ maxLength: 50 }),
    media: Type.Array(Type.String({ maxLength: 1000 }), { maxItems: 16 }),
    /** Frames the step was asked to last; null when it lasts until an answer (hold) or a video's end. */
    requestedFrames: Type.Union([Frames, Type.Null()]),
    shownFrames: Frames,
    onsetMs: Ms,
    offsetMs: Ms,
    droppedFrames: Frames,
    refreshMs: Type.Number({ minimum: 0 }),
    videos: Type.Optional(Type.Array(VideoFrameRecord, { maxItems: 16 })),
    object: Type.Optional(ObjectFrameRecord),
    endedBy: Type.Optional(Type.Union(['duration', 'video-end', 'click', 'answer', 'abort', 'interrupted'].map((k) => Type.Literal(k)))),
    /** The stage stopped drawing during the step (docs/timing.md, interruptions): why, when, and the
     * refreshes drawn before (shownFrames counts only those). */
    interrupted: Type.Optional(
      Type.Object(
        { cause: Type.Union(STAGE_INTERRUPTIONS.map((k) => Type.Literal(k))), atMs: Ms, refreshes: Frames },
        { additionalProperties: false },
      ),
    ),
    renderedFrames: Type.Optional(Frames),
    drops: Type.Optional(Type.Array(Type.Object({ atMs: Ms, intervalMs: Ms }, { additionalProperties: false }), { maxItems: 10_000 })),
    renderDoneMs: Type.Optional(Ms),
    clickMs: Type.Optional(Ms),
    /** The factor the media was drawn at when the layout had to shrink it to fit the window (bubble). */
    scale: Type.Optional(Type.Number({ minimum: 0 })),
    /** The device pixel ratio the step was drawn at (docs/pixels.md). */
    pixelRatio: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 64 })),
    /** Each drawn media: device pixels per media pixel, the sampling filter and the device rectangle. */
    items: Type.Optional(Type.Array(DrawnItem, { maxItems: 16 })),
  },
  { additionalProperties: false },
);
export type PresentationRecordBody = Static<typeof PresentationRecord>;

/**
 * The one versioned timing envelope of every answer (the `timing` field of a rating or a bubble screening): the
 * stage records of every play of the stimulus that led to it (the first play, replays and repetitions), with what
 * the page knew when it was answered.
 */
export const TimingEnvelope = Type.Object(
  {
    v: Type.Literal(2),
    /** One list of step records per play, in order. */
    plays: Type.Array(Type.Array(PresentationRecord, { maxItems: 64 }), { maxItems: 1000 }),
    /** The stage's measured refresh period, ms. */
    refreshMs: MaybeMs,
    /** How it was measured: a fit over `intervals` frame intervals (drops left out), its standard error, and the
     * changes of rate seen during the session. Absent from pages before it existed. */
    refresh: Type.Optional(
      Type.Object(
        {
          periodMs: Type.Number({ minimum: 0 }),
          uncertaintyMs: Type.Number({ minimum: 0 }),
          intervals: Type.Integer({ minimum: 0 }),
          changes: Type.Array(Type.Object({ atMs: Ms, fromMs: Ms, toMs: Ms }, { additionalProperties: false }), { maxItems: 100 }),
        },
        { additionalProperties: false },
      ),
    ),
    /** performance.timeOrigin: add it to the records' times to get epoch ms. */
    timeOrigin: Type.Number({ minimum: 0 }),
    /** The window sizes when the answer was given (the size text of `logs`, in full). */
    window: Type.Object(
      {
        ...WINDOW_SIZES,
        /** window.devicePixelRatio when the answer was given (absent from pages before it was sent). */
        pixelRatio: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 64 })),
      },
      { additionalProperties: false },
    ),
    /** performance.now() when the answer was given (same clock as the records): the trial's answer time. */
    answeredMs: Type.Optional(Ms),
    /** Protocol extras, e.g. the bubble page's order in task {oit: 2}. */
    extras: Type.Optional(Type.Record(Type.String({ pattern: '^[A-Za-z0-9_]{1,40}$' }), Type.Union([Type.String({ maxLength: 500 }), Type.Number()]))),
    /** Why a stimulus could not be shown (a media failed to load, decode or play): researchers exclude such trials. */
    mediaError: Type.Optional(Type.String({ maxLength: 2000 })),
    /** Older plays were dropped to stay under the size cap (the play count stays in nbReplay). */
    truncated: Type.Optional(Type.Boolean()),
    /** 1 + the plays the stage interrupted before the one answered (each replayed from its start). */
    attempt: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  },
  { additionalProperties: false },
);
export type TimingEnvelope = Static<typeof TimingEnvelope>;

/**
 * One camera pose of a 3D object, sampled on every frame that drew it (docs/3d-objects.md): turntable poses are
 * a function of the frame index, inspect poses follow the participant. Angles in degrees; `dist` is the camera
 * distance as a multiple of the distance fitted to the object's bounds (1 = fitted, < 1 = zoomed in).
 */
export const CameraSample = Type.Object(
  {
    /** Index of the play (0 = first play; replays count up), as in the timing envelope's `plays`. */
    play: Type.Integer({ minimum: 0, maximum: 1000 }),
    /** Frame index within the step that drew it (0 = onset frame). */
    frame: Frames,
    /** performance.now() stamp of the frame that showed this pose (the frame clock's "call on flip" time). */
    t: Ms,
    az: Type.Number(),
    el: Type.Number(),
    dist: Type.Number({ minimum: 0 }),
  },
  { additionalProperties: false },
);
export type CameraSample = Static<typeof CameraSample>;
export { MAX_CAMERA_SAMPLES };
/** The viewpoints of a 3D stimulus's plays, posted with its answer. */
export const ViewsRecord = Type.Object(
  {
    v: Type.Literal(1),
    mode: Type.Union([Type.Literal('turntable'), Type.Literal('inspect')]),
    samples: Type.Array(CameraSample, { maxItems: MAX_CAMERA_SAMPLES }),
  },
  { additionalProperties: false },
);
export type ViewsRecord = Static<typeof ViewsRecord>;

/**
 * logs: the SPEC §3 window-size text (`inner:WxH;outer:WxH;screen:WxH;fullscreen:0|1`, then `key:value` extras);
 * timing: the frame-timing envelope (optional: scripts and older pages may post without it).
 */
export const RatingBody = Type.Object(
  {
    stimuli_id: Id,
    session_id: Id,
    session_token: Token,
    value: Type.Number(),
    nbReplay: Type.Integer({ minimum: 0, maximum: 100000 }),
    logs: Type.Union([Type.String({ maxLength: 262144 }), Type.Null()]),
    timing: Type.Optional(TimingEnvelope),
    /** Camera poses of a 3D stimulus (absent for images and videos). */
    views: Type.Optional(ViewsRecord),
  },
  { additionalProperties: false },
);
export type RatingBody = Static<typeof RatingBody>;

export const MouseSample = Type.Object(
  { x: Type.Number(), y: Type.Number(), t: Time, vt: Type.Number() },
  { additionalProperties: false },
);
export type MouseSample = Static<typeof MouseSample>;
export const MAX_MOUSE_SAMPLES = 200_000;

export const BubbleScreeningBody = Type.Object(
  {
    stimuli_id: Id,
    session_id: Id,
    session_token: Token,
    mouse_logs: Type.Object(
      {
        mediaA: Type.Array(MouseSample, { maxItems: MAX_MOUSE_SAMPLES }),
        mediaB: Type.Array(MouseSample, { maxItems: MAX_MOUSE_SAMPLES }),
      },
      { additionalProperties: false },
    ),
    screening_no: Type.Integer({ minimum: 0, maximum: 100000 }),
    logs: Type.Null(),
    /** The timing of the play these samples were recorded in (one play). */
    timing: Type.Optional(TimingEnvelope),
  },
  { additionalProperties: false },
);
export type BubbleScreeningBody = Static<typeof BubbleScreeningBody>;

const MAX_LOG_ENTRIES = 100_000;
const entries = <T extends ReturnType<typeof Type.Object>>(item: T) => Type.Array(item, { maxItems: MAX_LOG_ENTRIES });

export const LogState = Type.Object(
  { state: Type.String({ maxLength: 100 }), status: Type.String({ maxLength: 200 }), time: Time },
  { additionalProperties: false },
);
export const LogMouseMove = Type.Object({ posX: Type.Number(), posY: Type.Number(), time: Time }, { additionalProperties: false });
export const LogMouseClick = Type.Object(
  {
    button: Type.Integer({ minimum: -1, maximum: 10 }),
    component_id: Type.String({ maxLength: 300 }),
    pageX: Type.Number(),
    pageY: Type.Number(),
    time: Time,
  },
  { additionalProperties: false },
);
export const LogScroll = Type.Object(
  { top: Type.Number(), height: Type.Number(), left: Type.Number(), width: Type.Number(), time: Time },
  { additionalProperties: false },
);
export const LogKey = Type.Object(
  {
    key: Type.String({ maxLength: 50 }),
    code: Type.String({ maxLength: 50 }),
    repeat: Type.Boolean(),
    shiftKey: Type.Boolean(),
    altKey: Type.Boolean(),
    ctrlKey: Type.Boolean(),
    time: Time,
  },
  { additionalProperties: false },
);
export const LogFocus = Type.Object({ focus: Type.Boolean(), time: Time }, { additionalProperties: false });
export const LogDomSize = Type.Object(
  {
    ...WINDOW_SIZES,
    time: Time,
  },
  { additionalProperties: false },
);

export const SessionLogsBody = Type.Object(
  {
    sessionToken: Token,
    logStates: entries(LogState),
    logMouseMovement: entries(LogMouseMove),
    logMouseClick: entries(LogMouseClick),
    logScroll: entries(LogScroll),
    logKeyboard: entries(LogKey),
    logFocus: entries(LogFocus),
    logDomSize: entries(LogDomSize),
  },
  { additionalProperties: false },
);
export type SessionLogsBody = Static<typeof SessionLogsBody>;
export type LogStateEntry = Static<typeof LogState>;
export type LogMouseMoveEntry = Static<typeof LogMouseMove>;
export type LogMouseClickEntry = Static<typeof LogMouseClick>;
export type LogScrollEntry = Static<typeof LogScroll>;
export type LogKeyEntry = Static<typeof LogKey>;
export type LogFocusEntry = Static<typeof LogFocus>;
export type LogDomSizeEntry = Static<typeof LogDomSize>;

const Text = (max = 200) => Type.String({ minLength: 1, maxLength: max });
export const ConsentBody = Type.Object(
  {
    emailAddress: Type.String({ minLength: 3, maxLength: 320, pattern: '^[^\\s@]+@[^\\s@]+$' }),
    paraphe: Text(50),
    gender: Type.Union([Type.Literal('M.'), Type.Literal('Mme.')]),
    name: Text(),
    familyName: Text(),
    birthCountry: Text(),
    birthDay: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' }),
    currentDate: Type.Object(
      {
        day: Type.Integer({ minimum: 1, maximum: 31 }),
        month: Type.Integer({ minimum: 1, maximum: 12 }),
        year: Type.Integer({ minimum: 2000, maximum: 2200 }),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
export type ConsentBody = Static<typeof ConsentBody>;

export { IDEMPOTENCY_HEADER, SESSION_TOKEN_HEADER } from './headers.js';

/** Error body of every 4xx/5xx JSON answer. */
export interface ApiError {
  error: string;
  message: string;
  /** Validation errors: JSON path and message each. */
  details?: Array<{ path: string; message: string }>;
}
