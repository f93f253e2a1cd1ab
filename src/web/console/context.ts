import { createContext, useContext } from 'react';
import type { FailedRule } from '../../server/console/stats.js';
import type { ConsoleStrings } from './strings.js';

export interface ConsoleUser {
  id: number;
  email: string;
  admin: boolean;
}

export interface ConsoleContextValue {
  t: ConsoleStrings;
  user: ConsoleUser;
}

export const ConsoleContext = createContext<ConsoleContextValue | null>(null);

export function useConsole(): ConsoleContextValue {
  const value = useContext(ConsoleContext);
  if (!value) throw new Error('useConsole outside the console');
  return value;
}

/** The server's job list entry and job page shapes (src/server/console/job-routes.ts, stats.ts). */
export interface JobStats {
  status: string;
  target: number | null;
  visited: number;
  sessions: { started: number; running: number; completed: number; accepted: number; rejected: number; excluded: number; notJudged: number };
  playlists: Array<{ id: number; position: number; started: number; running: number; completed: number; accepted: number; rejected: number }>;
  completions: Array<{ hour: string; completed: number }>;
  medianSessionMinutes: number | null;
  dropOut: Array<{ phase: string; stimulus?: number; detail?: string; sessions: number }>;
  timing: { passed: number; failed: number };
  rules: Array<{ rule: string; kind: 'payment' | 'analysis'; passed: number; failed: number }>;
  rejections: Array<{ sessionId: number; completedAt: string | null; payment: 'approve' | 'reject'; analysis: 'include' | 'exclude'; failed: FailedRule[] }>;
  /** Stopping for precision, when the study sets it (docs/quality.md); the stimuli widest interval first. */
  precision: {
    scale: 'MOS' | 'JOD';
    ciHalfWidth: number;
    level: number;
    reached: number;
    total: number;
    reachedAt: string | null;
    stimuli: Array<{ stimulus: string; n: number; estimate: number | null; halfWidth: number | null; reached: boolean }>;
  } | null;
  /** An adaptive design (docs/adaptive.md): each participant's comparisons chosen at arrival; null for fixed playlists. */
  design: { mode: 'asap'; comparisonsPerParticipant: number; contents: number; conditions: { min: number; max: number } } | null;
}

export interface JobSummary {
  id: string;
  protocol: string;
  role: 'owner' | 'viewer';
  status: string;
  sessions: JobStats['sessions'];
  links: { prolific: string; mturk: string; lab: string };
}

export interface JobDetail {
  id: string;
  protocol: string;
  role: 'owner' | 'viewer';
  question: string;
  quality: Record<string, unknown>;
  links: JobSummary['links'];
  completionUrl: string | null;
  /** The job's fields as the study file gave them (long HTML texts left out). */
  settings: Record<string, unknown>;
  /** The downloads that fit the protocol ('ratings.csv', 'pairs.csv', ...). */
  downloads: string[];
  stats: JobStats;
}
