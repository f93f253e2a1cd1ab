// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LAB_CONTACT_EMAIL } from '../../docs/labContact.js';
import { button, click, render, settle, type, type Rendered } from '../../testing/renderDom.js';
import { ConsentForm } from './ConsentForm.js';

let page: Rendered | undefined;
afterEach(() => {
  page?.unmount();
  vi.restoreAllMocks();
});

const q = (selector: string) => page!.container.querySelector(selector);
const RED = "Vérifiez que vous avez bien complété tous les champs et accepté l'ensemble des conditions.";

/** The consent post itself is the journey's (flow/journey.test.ts); the form hands over the payload. */
function mount(email?: string | null) {
  const onSubmit = vi.fn();
  page = render(<ConsentForm email={email} onSubmit={onSubmit} />);
  return onSubmit;
}

async function fillAll() {
  for (const box of ['infoSheetRead', 'adultNoLegalProtection', 'proposalReceived', 'termsUnderstood']) {
    await click(q(`input[name="${box}"]`));
  }
  await click(q('input[name="participationChoice"][value="consent"]'));
  await click(q('input[name="dataProcessingChoice"][value="consent"]'));
  await click(q('input[name="gender"][value="M."]'));
  await type(q('input[name="name"]'), 'Paul');
  await type(q('input[name="familyName"]'), 'Martin');
  await type(q('input[name="birthCountry"]'), 'Belgique');
  await type(q('input[name="birthDay"]'), '02/11/1985');
  await type(q('input[name="paraphe"]'), 'PM');
}

describe('ConsentForm', () => {
  it('is in French and shows the invitation email read-only', () => {
    mount('paul.martin@example.fr');
    expect(page!.text()).toContain('Formulaire de consentement');
    const email = q('input[name="emailAddress"]') as HTMLInputElement;
    expect(email.value).toBe('paul.martin@example.fr');
    expect(email.readOnly).toBe(true);
    expect(q('a[href="/ficheInfo?lang=fr"]')?.textContent).toBe("fiche d'information");
  });

  it('falls back to the lab address when the link carries no email', () => {
    mount(null);
    expect((q('input[name="emailAddress"]') as HTMLInputElement).value).toBe(LAB_CONTACT_EMAIL);
  });

  it('an untouched form shows the red message and sends nothing', async () => {
    const onDone = mount('paul.martin@example.fr');
    expect(page!.text()).not.toContain(RED);
    await click(button(page!.container, 'Valider'));
    await settle(50);
    expect(q('.consent-error')?.textContent).toBe(RED);
    expect(onDone).not.toHaveBeenCalled();
  });

  it('refusing one consent question is refused like a missing field', async () => {
    const onDone = mount('paul.martin@example.fr');
    await fillAll();
    await click(q('input[name="dataProcessingChoice"][value="refuse"]'));
    await click(button(page!.container, 'Valider'));
    await settle(50);
    expect(q('.consent-error')?.textContent).toBe(RED);
    expect(q('fieldset[aria-invalid="true"] legend')?.textContent).toContain('Au traitement de mes données');
    expect(onDone).not.toHaveBeenCalled();
  });

  it('a complete form hands over the consent payload once', async () => {
    const onSubmit = mount('paul.martin@example.fr');
    await fillAll();
    await click(button(page!.container, 'Valider'));
    await settle(20);
    // Sending: the button says so and is disabled, so a second press hands over nothing.
    expect(page!.text()).toContain('Envoi en cours...');
    const now = new Date();
    expect(onSubmit.mock.calls).toEqual([
      [
        {
          emailAddress: 'paul.martin@example.fr',
          paraphe: 'PM',
          gender: 'M.',
          name: 'Paul',
          familyName: 'Martin',
          birthCountry: 'Belgique',
          birthDay: '1985-11-02',
          currentDate: { day: now.getDate(), month: now.getMonth() + 1, year: now.getFullYear() },
        },
      ],
    ]);
    expect(page!.text()).not.toContain(RED);
  });
});
