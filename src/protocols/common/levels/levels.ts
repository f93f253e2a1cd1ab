import type { Strings } from '../../../web/i18n/en.js';

/**
 * A category scale shown as buttons in the vote dialog (ACR, impairment, acceptability). Each level carries the
 * number stored as the rating value, so a module's value mapping is its scale table (SPEC §5 "sent as given").
 */
export interface Level {
  label: keyof Strings;
  value: number;
  /** Coloured mode (job.coloredScale): the level's colour. */
  color?: LevelColor;
  /** Levels with the same group are drawn together; groups are separated (acceptability's two levels). */
  group?: number;
}

export type LevelColor = 'green' | 'orange' | 'red';

export interface LevelScale {
  levels: readonly Level[];
  /** Draw each level in its colour (SPEC §9 "Coloured mode uses green, orange and red"). */
  colored: boolean;
}

/** SPEC §9 "Vote auto-submit: 5000 ms with the selected value". */
export const AUTO_SUBMIT_MS = 5000;

/** The level a stored (or reference) value stands for, if any. */
export function levelOf(scale: LevelScale, value: number | undefined): Level | undefined {
  return scale.levels.find((level) => level.value === value);
}

/** The levels split into their groups, in scale order (one group when no level names one). */
export function levelGroups(scale: LevelScale): Level[][] {
  const groups: Level[][] = [];
  for (const level of scale.levels) {
    const last = groups[groups.length - 1];
    if (last && last[0]!.group === level.group) last.push(level);
    else groups.push([level]);
  }
  return groups;
}
