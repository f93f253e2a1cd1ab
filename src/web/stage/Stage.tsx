/**
 * <Stage>: the one PixiJS canvas every protocol draws on. Lazy-loaded by the flow
 * (`React.lazy(() => import('../stage/Stage'))`) so PixiJS stays out of the first bundle.
 *
 * @pixi/react's <Application> creates the canvas and the renderer with its ticker stopped (autoStart false, own
 * ticker); StageEngine renders from the stage's single requestAnimationFrame clock instead. The canvas fills the
 * element <Stage> renders (100% x 100% of its parent by default) and follows its size.
 */
import { Application, extend } from '@pixi/react';
// The page's Content-Security-Policy has no 'unsafe-eval' (docs/security.md): PixiJS then needs its eval-free
// uniform and shader-sync functions, which this module installs before any renderer exists.
import 'pixi.js/unsafe-eval';
import { Container } from 'pixi.js';
import type { Application as PixiApplication } from 'pixi.js';
import { useEffect, useRef, useState } from 'react';
import type { CSSProperties } from 'react';
import type { VideoPath } from './mediaCache';
import { StageEngine } from './stageEngine';
import type { MediaLookup, StageController } from './types';

extend({ Container });

export interface StageProps {
  /** Preloaded media; the stage never fetches anything. */
  media: MediaLookup;
  /** Colour of the blank screen and around the media, any CSS colour string Pixi accepts ('#808080', 'black'). */
  background: string;
  /** Called once the refresh period is measured (about 1 s after mount), with the controller to play steps. */
  onReady(controller: StageController): void;
  className?: string;
  style?: CSSProperties;
  /** 'element' keeps videos on the <video> element (the fallback), 'frames' uploads each VideoFrame itself,
   * 'pixels' has the browser convert each frame to RGBA, for comparisons; default 'auto'. */
  videoPath?: VideoPath;
}

/** Pointer-move hit testing would run on Pixi's system ticker; the stage only needs DOM clicks on the canvas. */
const NO_PIXI_EVENTS = { move: false, globalMove: false, click: false, wheel: false };

export default function Stage({ media, background, onReady, className, style, videoPath }: StageProps) {
  const hostRef = useRef<HTMLDivElement>(null);
  const [app, setApp] = useState<PixiApplication | null>(null);
  const [root, setRoot] = useState<Container | null>(null);
  const engineRef = useRef<StageEngine | null>(null);
  // Latest props for the engine without recreating it (a new lookup function must not restart the clock).
  const latest = useRef({ media, background, onReady, videoPath });
  useEffect(() => {
    latest.current = { media, background, onReady, videoPath };
  });

  useEffect(() => {
    const host = hostRef.current;
    if (!app || !root || !host) return;
    const engine = new StageEngine({ app, root, host, lookup: (name) => latest.current.media(name), background: latest.current.background, videoPath: latest.current.videoPath });
    engineRef.current = engine;
    let mounted = true;
    void engine.start().then((controller) => {
      if (mounted) latest.current.onReady(controller);
    });
    return () => {
      mounted = false;
      engineRef.current = null;
      engine.destroy();
    };
  }, [app, root]);

  useEffect(() => {
    engineRef.current?.setBackground(background);
  }, [background]);

  return (
    <div ref={hostRef} className={className} style={{ position: 'relative', width: '100%', height: '100%', overflow: 'hidden', ...style }}>
      <Application
        onInit={setApp}
        autoStart={false}
        sharedTicker={false}
        preference="webgl"
        background={background}
        antialias={false}
        // A bubble window move redraws only the region it changed: the canvas keeps the rest between frames.
        preserveDrawingBuffer
        // The engine sizes the backing store in device pixels itself (the canvas's device-pixel box), and the canvas
        // fills its host by CSS: no CSS size rounded from a fractional one (docs/pixels.md).
        autoDensity={false}
        resolution={window.devicePixelRatio || 1}
        eventFeatures={NO_PIXI_EVENTS}
      >
        <pixiContainer ref={setRoot} />
      </Application>
    </div>
  );
}
