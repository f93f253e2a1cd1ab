import { Type, type Static } from '@sinclair/typebox';

/**
 * A study's quality control (docs/quality.md), at the top level of the study file: the session acceptance
 * rules, the target number of accepted observers per playlist, and the bonus. Not served to participants (it is
 * not a Job field). Every rule has a default that follows the P.910 crowd toolkit; `false` turns a rule off.
 */
export const QualityRules = Type.Object(
  {
    /** Every gold stimulus answered within its tolerance. Default true. */
    gold: Type.Optional(Type.Boolean()),
    /** Every trapping stimulus answered as it tells. Default true. */
    traps: Type.Optional(Type.Boolean()),
    /** Every attention check answered as expected. Default true. */
    attention: Type.Optional(Type.Boolean()),
    /** Rating protocols: the variance of the session's ratings at least this (no straight-lining). Default 0.15. */
    minVariance: Type.Optional(Type.Union([Type.Number({ minimum: 0 }), Type.Literal(false)])),
    /** How many ordinary ratings the variance rule needs: fewer alike answers are no sign of straight-lining. Default 4. */
    varianceAfterRatings: Type.Optional(Type.Integer({ minimum: 2, maximum: 100000 })),
    /** Rating protocols: Pearson r with the current MOS of the other sessions at least this. Default 0.7. */
    minCorrelation: Type.Optional(Type.Union([Type.Number({ minimum: -1, maximum: 1 }), Type.Literal(false)])),
    /** How many other completed sessions the MOS needs before the correlation rule applies. Default 10. */
    correlationAfterSessions: Type.Optional(Type.Integer({ minimum: 1, maximum: 100000 })),
    /** Every stimulus shown to the end: a timing record for each answer, no media error, no aborted play. Default true. */
    shownToEnd: Type.Optional(Type.Boolean()),
    /**
     * Analysis only: share of timed answers whose exposure was mistimed at most this. Only steps ended by their
     * duration count (not holds, clicks, video ends). Default 0.1.
     */
    maxMistimedShare: Type.Optional(Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Literal(false)])),
    /** Frames a duration-ended step may be over or under its requested frames. Default 1. */
    exposureToleranceFrames: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000 })),
    /** A duration-ended step shorter than this many frames must be exact. Default 10. */
    exactExposureBelowFrames: Type.Optional(Type.Integer({ minimum: 0, maximum: 100000 })),
    /**
     * Dropped frames (late rAF callbacks) a duration-ended step may have; default false: they do not count, since a
     * late frame of a still image changes nothing the participant sees unless it moves the offset, which the
     * exposure tolerance judges. Set it for moving stimuli shown for a duration.
     */
    maxDroppedFrames: Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: 100000 }), Type.Literal(false)])),
    /** Where the job requires fullscreen, every answer given in fullscreen. Default true. */
    fullscreen: Type.Optional(Type.Boolean()),
    /** No trial answered faster than this, ms from the first media onset of the play to the answer. Default 500. */
    minTrialMs: Type.Optional(Type.Union([Type.Number({ minimum: 0 }), Type.Literal(false)])),
    /** Where the job runs visual tests, the session logs show them passed. Default true. */
    visualTests: Type.Optional(Type.Boolean()),
    /**
     * 3D objects in inspect mode (docs/3d-objects.md): each answer's camera poses show at least `ms` of inspection
     * and an azimuth range of at least `azimuthDeg`; at most `maxShortShare` of the inspected answers may fall short.
     * Default false (off): a study turns it on. An analysis rule: it never refuses pay.
     */
    minInspection: Type.Optional(
      Type.Union([
        Type.Object(
          {
            ms: Type.Optional(Type.Number({ minimum: 0, maximum: 3_600_000 })),
            azimuthDeg: Type.Optional(Type.Number({ minimum: 0, maximum: 360 })),
            maxShortShare: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
          },
          { additionalProperties: false },
        ),
        Type.Literal(false),
      ]),
    ),
  },
  { additionalProperties: false },
);
export type QualityRules = Static<typeof QualityRules>;

export const StudyQuality = Type.Object(
  {
    rules: Type.Optional(QualityRules),
    /** Accepted observers each playlist needs; once every playlist has them the study is full. */
    targetAcceptedPerPlaylist: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
    /**
     * Rating protocols: which playlist a new participant gets. "balanced" (default): the least loaded one.
     * "widest-intervals": the one whose stimuli's intervals are widest, within the target (docs/quality.md).
     */
    allocation: Type.Optional(Type.Union([Type.Literal('balanced'), Type.Literal('widest-intervals')])),
    /**
     * Stopping for precision (rating and pair comparison protocols): the study is full once every stimulus's
     * interval at `level` (default 0.95) is within ± `ciHalfWidth` on the MOS or JOD scale (docs/quality.md).
     */
    stopWhen: Type.Optional(
      Type.Object(
        {
          ciHalfWidth: Type.Number({ exclusiveMinimum: 0, maximum: 100 }),
          level: Type.Optional(Type.Number({ minimum: 0.5, maximum: 0.999 })),
        },
        { additionalProperties: false },
      ),
    ),
    /** A bonus for accepted sessions, written to the bonus list of `decisions`. */
    bonus: Type.Optional(
      Type.Object(
        {
          amount: Type.String({ pattern: '^\\d{1,6}(\\.\\d{1,2})?$' }),
          reason: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
        },
        { additionalProperties: false },
      ),
    ),
    /** Feedback sent with an MTurk rejection (the reasons are appended). */
    rejectionMessage: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
  },
  { additionalProperties: false },
);
export type StudyQuality = Static<typeof StudyQuality>;

/**
 * What a gold, trapping or attention-check stimulus expects. `answer` is in the protocol's answer space
 * (docs/quality.md): the reporting-scale score for ratings, 'A' or 'B' for the better side of a pair,
 * 'AB' or 'CD' for the MLDS pair that differs more, 'A' or 'C' for the triplet side closer to B, the emotion index
 * for piiface, the stored value for bubble.
 */
export interface StimulusCheck {
  kind: 'gold' | 'trap' | 'attention';
  answer: number | string;
  /** Gold ratings: how far from `answer` still counts as right (default 0). */
  tolerance?: number;
  /** 'random': moved to a random position of its playlist at import (the same one on every re-import). */
  position?: 'random';
}
