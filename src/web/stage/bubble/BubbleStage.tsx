/**
 * <BubbleStage>: the bubble test's PixiJS canvas (lazy-loaded by the bubble page, so PixiJS stays out of the
 * first bundle). It fills its parent and calls onReady with the controller once the refresh is measured.
 * The Application is created here directly: its ticker never starts (BubbleEngine renders from the frame clock),
 * and Pixi's pointer events are off (the page listens to pointer events itself, with coalesced samples).
 */
import { Application } from 'pixi.js';
import { useEffect, useRef } from 'react';
import type { CSSProperties } from 'react';
import type { MediaLookup } from '../types';
import { BubbleEngine } from './bubbleEngine';
import type { BubbleStageController, PointerSource } from './types';

export interface BubbleStageProps {
  media: MediaLookup;
  background: string;
  /** Latest pointer sample in canvas CSS px; read once per frame. */
  pointer: PointerSource;
  onReady(controller: BubbleStageController): void;
  className?: string;
  style?: CSSProperties;
}

const NO_PIXI_EVENTS = { move: false, globalMove: false, click: false, wheel: false };

export default function BubbleStage({ media, background, pointer, onReady, className, style }: BubbleStageProps) {
  const hostRef = useRef<HTMLDivElement>(null);
  // Latest props without recreating the engine (a new function must not restart the clock).
  const latest = useRef({ media, background, pointer, onReady });
  useEffect(() => {
    latest.current = { media, background, pointer, onReady };
  });
  const engineRef = useRef<BubbleEngine | null>(null);

  useEffect(() => {
    const host = hostRef.current!;
    const app = new Application();
    let engine: BubbleEngine | null = null;
    let initialised = false;
    let unmounted = false;
    void app
      .init({
        preference: 'webgl',
        autoStart: false,
        sharedTicker: false,
        background: latest.current.background,
        antialias: false,
        // A window move redraws only the region it changed; the canvas keeps the rest between frames.
        preserveDrawingBuffer: true,
        autoDensity: true,
        resolution: window.devicePixelRatio || 1,
        width: Math.max(1, host.clientWidth),
        height: Math.max(1, host.clientHeight),
        eventFeatures: NO_PIXI_EVENTS,
      })
      .then(() => {
        initialised = true;
        if (unmounted) {
          app.destroy(true, true);
          return;
        }
        host.appendChild(app.canvas);
        engine = new BubbleEngine({
          app,
          host,
          lookup: (name) => latest.current.media(name),
          background: latest.current.background,
          pointer: () => latest.current.pointer(),
        });
        engineRef.current = engine;
        return engine.start().then((controller) => {
          if (!unmounted) latest.current.onReady(controller);
        });
      })
      .catch((error: unknown) => console.log('the bubble stage could not start', error));
    return () => {
      unmounted = true;
      engineRef.current = null;
      engine?.destroy();
      if (initialised) app.destroy(true, true);
    };
  }, []);

  useEffect(() => {
    engineRef.current?.setBackground(background);
  }, [background]);

  return <div ref={hostRef} className={className} style={{ position: 'relative', width: '100%', height: '100%', overflow: 'hidden', ...style }} />;
}
