import type { ParticipantDocument } from './types.js';

/** /ficheInfo in English. `{contact}` is replaced by the lab's address (labContact.ts). */
export const informationSheetEn: ParticipantDocument = {
  lang: 'en',
  title: 'Information sheet',
  updated: 'Last updated: 1 June 2025',
  intro: [
    'You are invited to take part in a study on the perceived quality of images and videos. Please read this sheet before deciding. Taking part is entirely voluntary.',
  ],
  sections: [
    {
      heading: 'Purpose of the study',
      paragraphs: [
        'Images and videos are compressed, resized and processed before they reach a screen, and each step can change how they look. Algorithms are judged by how people see the result, and only people can tell. Your ratings will be used to compare such algorithms and to build better measures of visual quality. The results will be published in scientific articles and may be shared as open data for research.',
      ],
    },
    {
      heading: 'What you will do',
      list: [
        'An automatic check that your browser and screen are suitable, and sometimes a short visual acuity test (reading letters) and a colour-vision test (reading numbers in dot patterns).',
        'Instructions and, for some tests, a few training examples.',
        'The test itself: you watch images or videos, usually in fullscreen, and answer a question about each one, for example which of two looks better or how good one looks on a scale. In the gaze test (bubble test), you explore a blurred image with a clear window that follows your mouse.',
        'At the end, a verification code is shown; on crowd-work platforms it proves that you completed the test.',
      ],
      paragraphs: [
        'The duration and the payment are given in the study announcement; most tests take between 10 and 30 minutes. Sit at your usual distance from the screen, in a quiet place, and take breaks between tests if you need to.',
      ],
    },
    {
      heading: 'Who can take part',
      paragraphs: [
        'Adults (18 or over) with normal or corrected-to-normal vision (glasses or contact lenses are fine). On the lab platform, people under legal protection (guardianship, curatorship) cannot take part. If you have photosensitive epilepsy, do not take part: some videos may contain flashes or rapid changes.',
      ],
    },
    {
      heading: 'Risks and benefits',
      paragraphs: [
        'There is no known risk beyond those of ordinary screen use, such as tired eyes. You may stop at any time. You will receive the payment stated in the announcement, and you contribute to research on image and video technology.',
      ],
    },
    {
      heading: 'Your data',
      paragraphs: [
        'The study stores your ratings, timing records, an interaction log (steps reached, mouse, clicks, keys pressed on the page, window size), a browser check and the identifiers sent by the recruitment platform. Your answers are kept under a session number, not under your name. On the lab platform, your consent form is stored apart from your answers. Platform identifiers are deleted at most 12 months after the end of the study, answers are kept at most 10 years, and lab consent forms 5 years. The privacy policy gives the details, the legal basis and your rights.',
      ],
    },
    {
      heading: 'Taking part is voluntary; how to withdraw',
      paragraphs: [
        'You may refuse to take part, or stop at any time by closing the page, without giving a reason and without any consequence for you. To have your data deleted afterwards, write to {contact} with your platform ID, the email address of your invitation or the verification code shown at the end of the test. Answers already included in published anonymous results can no longer be removed.',
      ],
    },
    {
      heading: 'Contact',
      paragraphs: [
        'For any question about the study, before, during or after taking part, write to the research team at {contact}.',
      ],
    },
  ],
  otherLanguage: 'Version française',
  seeAlso: 'Privacy policy',
};
