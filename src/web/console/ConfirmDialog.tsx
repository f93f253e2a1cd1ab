import { useEffect, useRef } from 'react';
import { useConsole } from './context.js';

/**
 * An explicit confirmation (a modal <dialog>: the browser traps focus in it and Escape cancels). Every control that
 * changes a study or deletes data asks through it.
 */
export function ConfirmDialog({ message, onConfirm, onCancel }: { message: string; onConfirm(): void; onCancel(): void }) {
  const { t } = useConsole();
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const element = dialog.current;
    if (element && !element.open) element.showModal();
    return () => element?.close();
  }, []);
  return (
    <dialog ref={dialog} className="confirm-dialog" aria-labelledby="confirm-message" onCancel={onCancel}>
      <p id="confirm-message">{message}</p>
      <div className="dialog-buttons">
        <button type="button" id="confirm-yes" onClick={onConfirm}>
          {t.confirm}
        </button>
        <button type="button" className="secondary" onClick={onCancel} autoFocus>
          {t.cancel}
        </button>
      </div>
    </dialog>
  );
}
