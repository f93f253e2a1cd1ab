import type { ParticipantDocument } from './types.js';

/** /rgpd_file in English. `{contact}` is replaced by the lab's address (labContact.ts). */
export const privacyPolicyEn: ParticipantDocument = {
  lang: 'en',
  title: 'Privacy policy',
  updated: 'Last updated: 1 June 2025',
  intro: [
    'This study runs on Glimpse, a web application used by research laboratories to measure how people perceive the quality of images and videos. This page explains which data about you the study stores, why, for how long, who can see it and how to withdraw.',
    'The data controller is the research laboratory that runs the study, named in the study announcement. You can reach it, and its data protection officer, at {contact}.',
  ],
  sections: [
    {
      heading: 'What we store',
      list: [
        'Your answers: the rating you give to each image or video, and how many times you replayed it.',
        'Timing records: when each image or video was actually displayed, to check that the test ran correctly on your device.',
        'An interaction log: the steps of the test you reached and when, mouse movements and clicks on the page, scrolling, the keys you pressed on the page (not what you type in other applications), whether the page had the focus, and the size of the window and the screen. In the gaze test (bubble test), the path of the mouse over each image or video.',
        'A browser check: the name and version of your browser, your operating system and your screen size. It checks that your device is suitable; it is stored apart from your answers and linked to them only by a number.',
        'Platform identifiers: your Prolific ID and study and session IDs, or your Amazon Mechanical Turk worker, assignment and HIT IDs, as the platform sends them; on the lab platform, the email address of your invitation link.',
        'A session number, a session code and the verification code shown at the end of the test.',
        'Lab platform only: the consent form you fill in (first name, family name, initials, title, country and date of birth, email address and the date). It is stored in a separate table and is not linked to your answers.',
      ],
      paragraphs: [
        'We do not store your name (outside the lab consent form), your IP address with your answers, or a result of the visual acuity and colour-vision tests: those tests are checked in your browser and only decide whether you can take part. Keys you press on the page while answering them are part of the interaction log.',
      ],
    },
    {
      heading: 'Why',
      list: [
        'Answers, timing records and the interaction log: to compute the perceived quality of the images and videos, and to detect answers given without attention or on a test that did not run correctly, which are then excluded.',
        'Browser check: to make sure your browser and screen can show the media as intended.',
        'Platform identifiers: to pay you, to prevent the same person from taking the same test twice, and to find your data if you ask us to delete it.',
        'Consent form: to keep proof that you agreed to take part, as French research regulations require for lab studies.',
      ],
    },
    {
      heading: 'Legal basis',
      paragraphs: [
        'The processing is based on your consent (Article 6(1)(a) of the General Data Protection Regulation, GDPR), which you give by ticking the consent box or signing the consent form, and which you can withdraw at any time. It serves scientific research, with the safeguards of Article 89 GDPR: data minimisation and pseudonymisation (your answers are kept under a session number, not under your name).',
      ],
    },
    {
      heading: 'How long we keep it',
      list: [
        'Platform identifiers and the invitation email: until the end of data collection and payment, and at most 12 months after the end of the study; they are then deleted, which leaves your answers pseudonymous.',
        'Answers, timing records, interaction logs and browser checks: for the analysis and publication of the results, and at most 10 years after the end of the study so that published results can be checked. After the platform identifiers are deleted, they can no longer be linked to you.',
        'Lab consent forms: 5 years after the end of the study, then destroyed.',
        'Web server access logs (which contain IP addresses and are never joined to your answers): at most 6 months.',
      ],
      paragraphs: [
        'Results are published in aggregated form (for example mean scores per image). The laboratory may also publish the individual answers as an open data set for other researchers, after removing every platform identifier, email address and session code.',
      ],
    },
    {
      heading: 'Who can see it',
      paragraphs: [
        'Only the members of the research team that runs the study, and the technical staff who operate the servers. Your data is not sold or used for advertising. The recruitment platform (Prolific or Amazon Mechanical Turk) only receives the completion code it needs to pay you; it has its own privacy policy. The application uses no advertising or third-party tracking cookies; it may keep technical information about the current test in your browser so that a reload does not lose your progress.',
      ],
    },
    {
      heading: 'Your rights and how to withdraw',
      paragraphs: [
        'You can stop the test at any time by closing the page, without giving a reason; the answers already sent stay pseudonymous and you can ask us to delete them.',
        'To withdraw after the test, or to access, correct or delete your data, write to {contact} with your Prolific ID or Mechanical Turk worker ID, or the email address of your invitation, or the verification code shown at the end of the test. We answer within one month. Once the platform identifiers have been deleted (see above), we can only find your answers with the verification code, and answers already included in a published anonymous data set or in published results can no longer be removed.',
        'You also have the right to object to and to restrict the processing, and to lodge a complaint with a supervisory authority: in France the CNIL (www.cnil.fr), or the authority of your country of residence.',
      ],
    },
  ],
  otherLanguage: 'Version française',
  seeAlso: 'Information sheet',
};
