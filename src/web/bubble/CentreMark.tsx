/** The mouse mark at the centre of the screen (centering gate, and the pause between A and B). */
export function CentreMark({ active = false }: { active?: boolean }) {
  return <div className={`bubble-mark${active ? ' active' : ''}`} id="bubble-mark" aria-hidden="true" />;
}
