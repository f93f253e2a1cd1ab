/** Loading spinner with its text (SPEC §2 screen 1). */
export function Spinner({ text }: { text: string }) {
  return (
    <div className="spinner" role="status">
      <span>{text}</span>
    </div>
  );
}
