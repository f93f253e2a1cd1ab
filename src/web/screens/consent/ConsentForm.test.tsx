// @vitest-environment jsdom
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { LAB_CONTACT_EMAIL } from '../../docs/labContact.js';
import { button, click, render, settle, type, type Rendered } from '../../testing/renderDom.js';
import { ConsentForm } from './ConsentForm.js';

/**
 * A real HTTP endpoint on a random port standing in for /api/consent/ (the jsdom page is on another origin,
 * hence the CORS headers): it records each body and answers with a small PDF or, when told, a 500.
 */
const received: unknown[] = [];
let answerWith: 'pdf' | 'error' = 'pdf';
let server: Server;
let apiBase = '';
const PDF = Buffer.from('%PDF-1.4\n% consent copy\n%%EOF\n');

beforeAll(async () => {
  server = createServer((req, res) => {
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Access-Control-Allow-Headers', 'content-type');
    if (req.method === 'OPTIONS') return void res.writeHead(204).end();
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      received.push({ path: req.url, body: JSON.parse(body) });
      if (answerWith === 'error') return void res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"BOOM","message":"x"}');
      res.writeHead(201, { 'content-type': 'application/pdf' }).end(PDF);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  apiBase = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

let page: Rendered | undefined;
afterEach(() => {
  page?.unmount();
  received.length = 0;
  answerWith = 'pdf';
  vi.restoreAllMocks();
});

const q = (selector: string) => page!.container.querySelector(selector);
const RED = "Vérifiez que vous avez bien complété tous les champs et accepté l'ensemble des conditions.";

function mount(email?: string | null, base = apiBase) {
  const onDone = vi.fn();
  page = render(<ConsentForm email={email} onDone={onDone} apiBase={base} />);
  return onDone;
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
  await type(q('input[name="birthDay"]'), '1985-11-02');
  await type(q('input[name="paraphe"]'), 'PM');
}

/** Waits for the post to come back (real network). */
async function until(condition: () => boolean) {
  for (let i = 0; i < 200 && !condition(); i++) await settle(10);
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
    expect(received).toEqual([]);
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
    expect(received).toEqual([]);
    expect(onDone).not.toHaveBeenCalled();
  });

  it('a complete form posts the consent payload, offers the PDF and continues', async () => {
    const offered: Blob[] = [];
    URL.createObjectURL = (blob: Blob) => (offered.push(blob), 'blob:consent');
    URL.revokeObjectURL = () => {};
    const clicked: string[] = [];
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicked.push(`${this.download} ${this.href}`);
    });
    const onDone = mount('paul.martin@example.fr');
    await fillAll();
    await click(button(page!.container, 'Valider'));
    await until(() => onDone.mock.calls.length > 0);

    const now = new Date();
    expect(received).toEqual([
      {
        path: '/api/consent/',
        body: {
          emailAddress: 'paul.martin@example.fr',
          paraphe: 'PM',
          gender: 'M.',
          name: 'Paul',
          familyName: 'Martin',
          birthCountry: 'Belgique',
          birthDay: '1985-11-02',
          currentDate: { day: now.getDate(), month: now.getMonth() + 1, year: now.getFullYear() },
        },
      },
    ]);
    expect(onDone).toHaveBeenCalledTimes(1);
    expect(clicked).toEqual(['consentement.pdf blob:consent']);
    expect(Buffer.from(await offered[0]!.arrayBuffer())).toEqual(PDF);
    expect(page!.text()).not.toContain(RED);
  });

  it('continues when the server answers an error', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    answerWith = 'error';
    const onDone = mount('paul.martin@example.fr');
    await fillAll();
    await click(button(page!.container, 'Valider'));
    await until(() => onDone.mock.calls.length > 0);
    expect(received).toHaveLength(1);
    expect(onDone).toHaveBeenCalledTimes(1);
    expect(logged).toHaveBeenCalled();
  });

  it('continues when the server cannot be reached', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const deadBase = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const onDone = mount('paul.martin@example.fr', deadBase);
    await fillAll();
    await click(button(page!.container, 'Valider'));
    await until(() => onDone.mock.calls.length > 0);
    expect(onDone).toHaveBeenCalledTimes(1);
  });
});
