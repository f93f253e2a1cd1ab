import type { FormEvent, InputHTMLAttributes, ReactNode } from 'react';

export interface VisualAnswerFormProps {
  title: string;
  instruction: string;
  /** What the participant reads: the chart, or a plate with its progress line. */
  children: ReactNode;
  answerLabel: string;
  /** The answer field's name and this test's keyboard hints (numeric, no spell check...). */
  input: Omit<InputHTMLAttributes<HTMLInputElement>, 'value' | 'onChange'> & { name: string };
  answer: string;
  onAnswerChange(answer: string): void;
  submitLabel: string;
  /** The answer is being checked: submitting again does nothing. */
  checking?: boolean;
  /** Called with a non-blank answer (the test checks it as typed). */
  onSubmit(): void;
}

/**
 * The frame shared by the acuity chart and the colour plates (SPEC §5): a title, an instruction, the picture, one
 * typed answer, and a submit button that stays disabled until something is typed.
 */
export function VisualAnswerForm(props: VisualAnswerFormProps) {
  const { title, instruction, children, answerLabel, input, answer, onAnswerChange, submitLabel, checking = false, onSubmit } = props;
  const blank = answer.trim() === '';
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!checking && !blank) onSubmit();
  };
  return (
    <form className="visual-test" onSubmit={submit}>
      <h1>{title}</h1>
      <p className="visual-instruction">{instruction}</p>
      {children}
      <label className="visual-answer">
        {answerLabel}
        <input {...input} value={answer} onChange={(e) => onAnswerChange(e.target.value)} autoComplete="off" autoFocus />
      </label>
      <button type="submit" disabled={checking || blank}>
        {submitLabel}
      </button>
    </form>
  );
}
