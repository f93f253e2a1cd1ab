import type { ParticipantDocument } from './types.js';

/** /ficheInfo en français. `{contact}` est remplacé par l'adresse du laboratoire (labContact.ts). */
export const informationSheetFr: ParticipantDocument = {
  lang: 'fr',
  title: "Fiche d'information",
  updated: 'Dernière mise à jour : 1er juin 2025',
  intro: [
    "Vous êtes invité(e) à participer à une étude sur la qualité perçue d'images et de vidéos. Merci de lire cette fiche avant de vous décider. La participation est entièrement volontaire.",
  ],
  sections: [
    {
      heading: "But de l'étude",
      paragraphs: [
        "Les images et les vidéos sont compressées, redimensionnées et traitées avant d'arriver sur un écran, et chaque étape peut modifier leur apparence. Les algorithmes sont jugés sur la façon dont les personnes voient le résultat, et seules des personnes peuvent en juger. Vos notes serviront à comparer ces algorithmes et à construire de meilleures mesures de la qualité visuelle. Les résultats seront publiés dans des articles scientifiques et pourront être partagés comme données ouvertes pour la recherche.",
      ],
    },
    {
      heading: 'Ce que vous ferez',
      list: [
        "Une vérification automatique que votre navigateur et votre écran conviennent, et parfois un court test d'acuité visuelle (lecture de lettres) et un test de vision des couleurs (lecture de nombres formés de points).",
        "Des consignes et, pour certains tests, quelques exemples d'entraînement.",
        "Le test lui-même : vous regardez des images ou des vidéos, généralement en plein écran, et répondez à une question sur chacune, par exemple laquelle de deux est la meilleure ou quelle est sa qualité sur une échelle. Dans le test du regard (test « bubble »), vous explorez une image floue avec une fenêtre nette qui suit votre souris.",
        'À la fin, un code de vérification est affiché ; sur les plateformes de micro-travail, il prouve que vous avez terminé le test.',
      ],
      paragraphs: [
        "La durée et la rémunération sont indiquées dans l'annonce de l'étude ; la plupart des tests durent entre 10 et 30 minutes. Installez-vous à votre distance habituelle de l'écran, dans un endroit calme, et faites des pauses entre les tests si besoin.",
      ],
    },
    {
      heading: 'Qui peut participer',
      paragraphs: [
        "Les personnes majeures (18 ans ou plus) ayant une vision normale ou corrigée (lunettes ou lentilles acceptées). Sur la plateforme du laboratoire, les personnes faisant l'objet d'une mesure de protection juridique (tutelle, curatelle, sauvegarde de justice) ne peuvent pas participer. Si vous êtes sujet(te) à l'épilepsie photosensible, ne participez pas : certaines vidéos peuvent contenir des flashs ou des changements rapides.",
      ],
    },
    {
      heading: 'Risques et bénéfices',
      paragraphs: [
        "Il n'y a pas de risque connu au-delà de ceux d'un usage ordinaire d'un écran, comme une fatigue visuelle. Vous pouvez arrêter à tout moment. Vous recevrez la rémunération indiquée dans l'annonce, et vous contribuez à la recherche sur les technologies de l'image et de la vidéo.",
      ],
    },
    {
      heading: 'Vos données',
      paragraphs: [
        "L'étude conserve vos notes, des relevés de temps, un journal d'interaction (étapes atteintes, souris, clics, touches pressées sur la page, taille de la fenêtre), une vérification du navigateur et les identifiants transmis par la plateforme de recrutement. Vos réponses sont conservées sous un numéro de session, pas sous votre nom. Sur la plateforme du laboratoire, votre formulaire de consentement est conservé à part de vos réponses. Les identifiants de la plateforme sont supprimés au plus 12 mois après la fin de l'étude, les réponses sont conservées 10 ans au plus et les formulaires de consentement du laboratoire 5 ans. La politique de confidentialité en donne le détail, la base légale et vos droits.",
      ],
    },
    {
      heading: 'Une participation volontaire ; comment vous retirer',
      paragraphs: [
        "Vous pouvez refuser de participer, ou arrêter à tout moment en fermant la page, sans avoir à vous justifier et sans aucune conséquence pour vous. Pour faire supprimer vos données ensuite, écrivez à {contact} en indiquant votre identifiant de plateforme, l'adresse e-mail de votre invitation ou le code de vérification affiché à la fin du test. Les réponses déjà incluses dans des résultats anonymes publiés ne peuvent plus être retirées.",
      ],
    },
    {
      heading: 'Contact',
      paragraphs: [
        "Pour toute question sur l'étude, avant, pendant ou après votre participation, écrivez à l'équipe de recherche à {contact}.",
      ],
    },
  ],
  otherLanguage: 'English version',
  seeAlso: 'Politique de confidentialité',
};
