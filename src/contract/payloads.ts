import { Type, type Static } from '@sinclair/typebox';

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

/** logs: free text up to 256 KiB; the web client puts its JSON timing records here. */
export const RatingBody = Type.Object(
  {
    stimuli_id: Id,
    session_id: Id,
    session_token: Token,
    value: Type.Number(),
    nbReplay: Type.Integer({ minimum: 0, maximum: 100000 }),
    logs: Type.Union([Type.String({ maxLength: 262144 }), Type.Null()]),
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
    inner: Size,
    outer: Size,
    screen: Size,
    available: Size,
    document: Size,
    zoom: Type.Number(),
    isfullScreen: Type.Boolean(),
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

/** Header the web client sends with every rating/screening post; a retry reuses it, so no duplicate is stored. */
export const IDEMPOTENCY_HEADER = 'idempotency-key';

/** Error body of every 4xx/5xx JSON answer. */
export interface ApiError {
  error: string;
  message: string;
  /** Validation errors: JSON path and message each. */
  details?: Array<{ path: string; message: string }>;
}
