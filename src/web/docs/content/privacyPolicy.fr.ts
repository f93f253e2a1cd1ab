import type { ParticipantDocument } from './types.js';

/** /rgpd_file en français. `{contact}` est remplacé par l'adresse du laboratoire (labContact.ts). */
export const privacyPolicyFr: ParticipantDocument = {
  lang: 'fr',
  title: 'Politique de confidentialité',
  updated: 'Dernière mise à jour : 1er juin 2025',
  intro: [
    "Cette étude utilise Glimpse, une application web grâce à laquelle des laboratoires de recherche mesurent la qualité perçue d'images et de vidéos. Cette page explique quelles données vous concernant l'étude conserve, pourquoi, pendant combien de temps, qui peut les consulter et comment vous retirer.",
    "Le responsable du traitement est le laboratoire de recherche qui mène l'étude, désigné dans l'annonce de l'étude. Vous pouvez le joindre, ainsi que son délégué à la protection des données, à l'adresse {contact}.",
  ],
  sections: [
    {
      heading: 'Ce que nous conservons',
      list: [
        "Vos réponses : la note donnée à chaque image ou vidéo, et le nombre de fois où vous l'avez rejouée.",
        "Des relevés de temps : le moment où chaque image ou vidéo a réellement été affichée, pour vérifier que le test s'est déroulé correctement sur votre appareil.",
        "Un journal d'interaction : les étapes du test atteintes et leur heure, les mouvements et clics de la souris sur la page, le défilement, les touches pressées sur la page (pas ce que vous tapez dans d'autres applications), le fait que la page avait le focus ou non, et la taille de la fenêtre et de l'écran. Dans le test du regard (test « bubble »), le trajet de la souris sur chaque image ou vidéo.",
        "Une vérification du navigateur : le nom et la version de votre navigateur, votre système d'exploitation et la taille de votre écran. Elle vérifie que votre appareil convient ; elle est conservée à part de vos réponses et n'y est reliée que par un numéro.",
        "Les identifiants de la plateforme : votre identifiant Prolific et les identifiants d'étude et de session, ou vos identifiants de travailleur, d'affectation et de HIT Amazon Mechanical Turk, tels que la plateforme les transmet ; sur la plateforme du laboratoire, l'adresse e-mail de votre lien d'invitation.",
        'Un numéro de session, un code de session et le code de vérification affiché à la fin du test.',
        "Plateforme du laboratoire uniquement : le formulaire de consentement que vous remplissez (prénom, nom, paraphe, civilité, pays et date de naissance, adresse e-mail et date). Il est conservé dans une table séparée et n'est pas relié à vos réponses.",
      ],
      paragraphs: [
        "Nous ne conservons ni votre nom (hors formulaire de consentement du laboratoire), ni votre adresse IP avec vos réponses, ni de résultat des tests d'acuité visuelle et de vision des couleurs : ces tests sont vérifiés dans votre navigateur et décident seulement si vous pouvez participer. Les touches pressées sur la page pendant que vous y répondez font partie du journal d'interaction.",
      ],
    },
    {
      heading: 'Pourquoi',
      list: [
        "Réponses, relevés de temps et journal d'interaction : pour calculer la qualité perçue des images et vidéos, et pour repérer les réponses données sans attention ou lors d'un test qui ne s'est pas déroulé correctement, qui sont alors écartées.",
        "Vérification du navigateur : pour s'assurer que votre navigateur et votre écran affichent les médias comme prévu.",
        "Identifiants de la plateforme : pour vous rémunérer, pour éviter qu'une même personne passe deux fois le même test, et pour retrouver vos données si vous nous demandez de les supprimer.",
        "Formulaire de consentement : pour garder la preuve de votre accord à participer, comme l'exige la réglementation française de la recherche pour les études en laboratoire.",
      ],
    },
    {
      heading: 'Base légale',
      paragraphs: [
        "Le traitement repose sur votre consentement (article 6.1.a du Règlement général sur la protection des données, RGPD), que vous donnez en cochant la case de consentement ou en signant le formulaire de consentement, et que vous pouvez retirer à tout moment. Il sert la recherche scientifique, avec les garanties de l'article 89 du RGPD : minimisation des données et pseudonymisation (vos réponses sont conservées sous un numéro de session, pas sous votre nom).",
      ],
    },
    {
      heading: 'Durée de conservation',
      list: [
        "Identifiants de la plateforme et e-mail d'invitation : jusqu'à la fin de la collecte et de la rémunération, et au plus 12 mois après la fin de l'étude ; ils sont ensuite supprimés, ce qui laisse vos réponses pseudonymes.",
        "Réponses, relevés de temps, journaux d'interaction et vérifications du navigateur : le temps de l'analyse et de la publication des résultats, et au plus 10 ans après la fin de l'étude afin que les résultats publiés puissent être vérifiés. Une fois les identifiants de la plateforme supprimés, ils ne peuvent plus être reliés à vous.",
        "Formulaires de consentement du laboratoire : 5 ans après la fin de l'étude, puis détruits.",
        "Journaux d'accès du serveur web (qui contiennent des adresses IP et ne sont jamais croisés avec vos réponses) : 6 mois au plus.",
      ],
      paragraphs: [
        "Les résultats sont publiés sous forme agrégée (par exemple la note moyenne de chaque image). Le laboratoire peut aussi publier les réponses individuelles comme jeu de données ouvert pour d'autres chercheurs, après en avoir retiré tout identifiant de plateforme, adresse e-mail et code de session.",
      ],
    },
    {
      heading: 'Qui peut les consulter',
      paragraphs: [
        "Seuls les membres de l'équipe de recherche qui mène l'étude, et le personnel technique qui exploite les serveurs. Vos données ne sont ni vendues ni utilisées à des fins publicitaires. La plateforme de recrutement (Prolific ou Amazon Mechanical Turk) reçoit seulement le code de fin dont elle a besoin pour vous rémunérer ; elle a sa propre politique de confidentialité. L'application n'utilise aucun cookie publicitaire ni de suivi par des tiers ; elle peut garder dans votre navigateur des informations techniques sur le test en cours, pour qu'un rechargement de la page ne vous fasse pas perdre votre progression.",
      ],
    },
    {
      heading: 'Vos droits et comment vous retirer',
      paragraphs: [
        "Vous pouvez arrêter le test à tout moment en fermant la page, sans avoir à vous justifier ; les réponses déjà envoyées restent pseudonymes et vous pouvez nous demander de les supprimer.",
        "Pour vous retirer après le test, ou pour accéder à vos données, les rectifier ou les supprimer, écrivez à {contact} en indiquant votre identifiant Prolific ou Mechanical Turk, ou l'adresse e-mail de votre invitation, ou le code de vérification affiché à la fin du test. Nous répondons sous un mois. Une fois les identifiants de la plateforme supprimés (voir ci-dessus), nous ne pouvons retrouver vos réponses qu'avec le code de vérification, et les réponses déjà incluses dans un jeu de données anonyme publié ou dans des résultats publiés ne peuvent plus être retirées.",
        "Vous avez aussi le droit de vous opposer au traitement et d'en demander la limitation, et d'introduire une réclamation auprès d'une autorité de contrôle : en France la CNIL (www.cnil.fr), ou l'autorité de votre pays de résidence.",
      ],
    },
  ],
  otherLanguage: 'English version',
  seeAlso: "Fiche d'information",
};
