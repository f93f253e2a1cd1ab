import type {
  LogDomSizeEntry,
  LogFocusEntry,
  LogKeyEntry,
  LogMouseClickEntry,
  LogMouseMoveEntry,
  LogScrollEntry,
  LogStateEntry,
  SessionLogsBody,
} from '../../contract/payloads.js';
import { windowSizes } from './windowInfo.js';

/**
 * Silent interaction log of SPEC §3 (states, mouse moves, clicks, scroll, keys, focus, window size).
 * Plain arrays filled by DOM listeners: high-rate pointer data never goes through React state.
 * Times are epoch milliseconds (Date.now), comparable with server times.
 */

export type InteractionLogs = Omit<SessionLogsBody, 'sessionToken'>;

/** The server caps each list at 100 000 entries; later entries past that are dropped. */
export const MAX_ENTRIES = 100_000;

export interface LoggerOptions {
  /** Minimum spacing of mouse-move samples (the spec leaves the interval to the page). */
  mouseIntervalMs?: number;
  scrollIntervalMs?: number;
  now?: () => number;
}

export function emptyLogs(): InteractionLogs {
  return { logStates: [], logMouseMovement: [], logMouseClick: [], logScroll: [], logKeyboard: [], logFocus: [], logDomSize: [] };
}

/** What identifies the clicked component: its id, the nearest ancestor id, else its tag and short text. */
export function componentIdOf(target: EventTarget | null): string {
  if (!(target instanceof Element)) return 'window';
  const withId = target.closest('[id]');
  if (withId?.id) return withId.id.slice(0, 300);
  const text = (target.textContent ?? '').trim().replace(/\s+/g, ' ').slice(0, 60);
  return `${target.tagName.toLowerCase()}${text ? `:${text}` : ''}`.slice(0, 300);
}

export class InteractionLogger {
  readonly logs: InteractionLogs = emptyLogs();
  private readonly now: () => number;
  private lastMouse = -Infinity;
  private lastScroll = -Infinity;
  private detach: (() => void) | null = null;

  constructor(private readonly options: LoggerOptions = {}) {
    this.now = options.now ?? Date.now;
  }

  private push<T>(list: T[], entry: T): void {
    if (list.length < MAX_ENTRIES) list.push(entry);
  }

  logState(state: string, status: string): void {
    this.push<LogStateEntry>(this.logs.logStates, { state, status, time: this.now() });
  }

  logWindowSize(win: Window = window): void {
    this.push<LogDomSizeEntry>(this.logs.logDomSize, { ...windowSizes(win), time: this.now() });
  }

  /** Attach the listeners to a window (once). Returns the detach function. */
  start(win: Window = window): () => void {
    if (this.detach) return this.detach;
    const mouseEvery = this.options.mouseIntervalMs ?? 100;
    const scrollEvery = this.options.scrollIntervalMs ?? 200;
    const onMove = (e: MouseEvent) => {
      const t = this.now();
      if (t - this.lastMouse < mouseEvery) return;
      this.lastMouse = t;
      this.push<LogMouseMoveEntry>(this.logs.logMouseMovement, { posX: e.pageX, posY: e.pageY, time: t });
    };
    const onClick = (e: MouseEvent) =>
      this.push<LogMouseClickEntry>(this.logs.logMouseClick, {
        button: e.button,
        component_id: componentIdOf(e.target),
        pageX: e.pageX,
        pageY: e.pageY,
        time: this.now(),
      });
    const onScroll = () => {
      const t = this.now();
      if (t - this.lastScroll < scrollEvery) return;
      this.lastScroll = t;
      const doc = win.document.documentElement;
      this.push<LogScrollEntry>(this.logs.logScroll, { top: win.scrollY, left: win.scrollX, height: doc.scrollHeight, width: doc.scrollWidth, time: t });
    };
    const onKey = (e: KeyboardEvent) =>
      this.push<LogKeyEntry>(this.logs.logKeyboard, {
        key: String(e.key).slice(0, 50),
        code: String(e.code).slice(0, 50),
        repeat: e.repeat,
        shiftKey: e.shiftKey,
        altKey: e.altKey,
        ctrlKey: e.ctrlKey,
        time: this.now(),
      });
    const onFocus = () => this.push<LogFocusEntry>(this.logs.logFocus, { focus: true, time: this.now() });
    const onBlur = () => this.push<LogFocusEntry>(this.logs.logFocus, { focus: false, time: this.now() });
    let resizeTimer: ReturnType<typeof setTimeout> | undefined;
    const onResize = () => {
      clearTimeout(resizeTimer);
      resizeTimer = setTimeout(() => this.logWindowSize(win), 250);
    };
    const opts = { passive: true, capture: true } as const;
    // One table for attaching and detaching, so every listener added is removed with the same options.
    const listeners: Array<[EventTarget, string, (event: never) => void, AddEventListenerOptions?]> = [
      [win, 'mousemove', onMove, opts],
      [win, 'click', onClick, opts],
      [win, 'scroll', onScroll, opts],
      [win, 'keydown', onKey, opts],
      [win, 'focus', onFocus],
      [win, 'blur', onBlur],
      [win, 'resize', onResize],
      [win.document, 'fullscreenchange', onResize],
    ];
    for (const [target, type, listener, options] of listeners) target.addEventListener(type, listener as EventListener, options);
    this.logWindowSize(win);
    this.detach = () => {
      clearTimeout(resizeTimer);
      for (const [target, type, listener, options] of listeners) target.removeEventListener(type, listener as EventListener, options);
      this.detach = null;
    };
    return this.detach;
  }

  stop(): void {
    this.detach?.();
  }
}

const TRIM_ORDER: (keyof InteractionLogs)[] = ['logMouseMovement', 'logScroll', 'logDomSize', 'logKeyboard', 'logMouseClick', 'logFocus'];

/**
 * A copy of `body` small enough for navigator.sendBeacon (browsers refuse beacons over 64 KiB): halve the
 * high-rate lists first (keeping every other sample, so the whole session stays covered). States are kept.
 */
export function fitForBeacon(body: SessionLogsBody, maxBytes = 60_000): SessionLogsBody {
  const copy: SessionLogsBody = { ...body };
  const size = () => new TextEncoder().encode(JSON.stringify(copy)).byteLength;
  for (const key of TRIM_ORDER) {
    while (size() > maxBytes && (copy[key] as unknown[]).length > 0) {
      const list = copy[key] as unknown[];
      (copy as Record<string, unknown>)[key] = list.length === 1 ? [] : list.filter((_, i) => i % 2 === 1);
    }
  }
  return copy;
}
