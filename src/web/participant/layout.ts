/** Height of the question band above the stage when the question is shown along the test (category_id < 3). */
export const QUESTION_BAND_PX = 80;

/** SPEC §3: category_id below 3 means the question is shown along the test. */
export function questionAlongTest(categoryId: number): boolean {
  return categoryId < 3;
}
