import PDFDocument from 'pdfkit';
import type { ConsentBody } from '../contract/payloads.js';

const two = (n: number) => String(n).padStart(2, '0');
const frenchDate = (isoDay: string) => isoDay.split('-').reverse().join('/');

/** The statements the participant ticked on the French consent form (SPEC §5), as signed. */
const STATEMENTS = [
  'J’ai lu et compris la fiche d’information relative à cette étude.',
  'Je certifie être majeur(e) et ne pas faire l’objet d’une mesure de protection juridique.',
  'J’ai reçu une proposition de participation à cette étude et j’ai pu poser toutes mes questions.',
  'J’ai compris les conditions de ma participation : je peux me retirer à tout moment, sans avoir à me justifier.',
  'J’accepte librement de participer à cette étude.',
  'J’accepte que les données recueillies soient traitées de manière confidentielle à des fins de recherche.',
];

/** A PDF copy of the signed consent form, fields filled in (French text; standard fonts cover its accents). */
export function consentPdf(form: ConsentBody): Promise<Buffer> {
  const doc = new PDFDocument({ size: 'A4', margin: 56, info: { Title: 'Formulaire de consentement', Creator: 'Glimpse' } });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });

  const signedOn = `${two(form.currentDate.day)}/${two(form.currentDate.month)}/${form.currentDate.year}`;
  doc.font('Helvetica-Bold').fontSize(16).text('Formulaire de consentement éclairé', { align: 'center' });
  doc.moveDown(0.3).font('Helvetica').fontSize(11).text('Participation à une expérience d’évaluation de la qualité visuelle', { align: 'center' });
  doc.moveDown(1.5).fontSize(11);
  doc.text(
    `Je soussigné(e) ${form.gender} ${form.name} ${form.familyName}, né(e) le ${frenchDate(form.birthDay)} (pays de naissance : ${form.birthCountry}), déclare :`,
  );
  doc.moveDown(0.5);
  for (const statement of STATEMENTS) doc.text(`[x]  ${statement}`, { indent: 12 }).moveDown(0.3);
  doc.moveDown(1);
  doc.font('Helvetica-Bold').text('Adresse électronique : ', { continued: true }).font('Helvetica').text(form.emailAddress);
  doc.font('Helvetica-Bold').text('Fait le : ', { continued: true }).font('Helvetica').text(signedOn);
  doc.font('Helvetica-Bold').text('Paraphe : ', { continued: true }).font('Helvetica').text(form.paraphe);
  doc.moveDown(2).fontSize(9).fillColor('#555555');
  doc.text('Ce document est une copie du formulaire signé en ligne. Conservez-le : il atteste de votre consentement.');
  doc.end();
  return done;
}
