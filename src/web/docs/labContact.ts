/**
 * The lab's contact address, in ONE place: shown in the privacy policy and information sheet, and used as the
 * consent form's email when the invitation link carries none (SPEC §2 screen 7: "a default email fallback").
 * A lab deploying Glimpse sets its own address here.
 */
export const LAB_CONTACT_EMAIL = 'glimpse-lab@example.org';
