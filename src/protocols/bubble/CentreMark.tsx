/** The mouse mark at the centre of the stimulus (centering gate, and the pause between A and B); client CSS px. */
export function CentreMark({ centre, active = false }: { centre: { x: number; y: number }; active?: boolean }) {
  return <div className={`bubble-mark${active ? ' active' : ''}`} id="bubble-mark" aria-hidden="true" style={{ left: centre.x, top: centre.y }} />;
}
