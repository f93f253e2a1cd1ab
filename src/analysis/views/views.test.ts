import { describe, expect, it } from 'vitest';
import { specForViewCoverage } from '../report/charts.js';
import { renderSvg } from '../report/render-svg.js';
import { inspectionOf, VIEW_CELLS, ViewsAccumulator, type ViewsInput } from './views.js';

const pose = (play: number, t: number, az: number, el: number, dist: number) => ({ play, t, az, el, dist });
/** Two plays: 4 poses 100 ms apart turning 0° → 100°, then 2 poses 50 ms apart looking from below. */
const first: ViewsInput = {
  mode: 'inspect',
  samples: [pose(0, 0, 0, 0, 1), pose(0, 100, 40, 0, 1), pose(0, 200, 80, 20, 0.5), pose(0, 300, 100, 20, 0.5), pose(1, 1000, -10, -50, 2), pose(1, 1050, -20, -50, 2)],
};
const second: ViewsInput = { mode: 'inspect', samples: [pose(0, 0, 0, 0, 1), pose(0, 100, 10, 0, 1)] };
const cell = (el: number, az: number) => el * 12 + az;

describe('inspection of a 3D object', () => {
  it('weighs each pose until the next of its play, the last by the play\'s median interval', () => {
    const seen = inspectionOf(first);
    expect(seen.inspectMs).toBe(400 + 100);
    expect(seen.azimuthRangeDeg).toBe(120);
    expect(seen.elevationRangeDeg).toBe(70);
    const cells = Object.fromEntries([...seen.cellMs].flatMap((ms, k) => (ms > 0 ? [[k, ms]] : [])));
    // Azimuth wrapped (−10° and −20° fall in 330°–360°), elevation from −90°.
    expect(cells).toEqual({ [cell(6, 0)]: 100, [cell(6, 1)]: 100, [cell(7, 2)]: 100, [cell(7, 3)]: 100, [cell(2, 11)]: 100 });
    expect(inspectionOf({ mode: 'inspect', samples: [pose(0, 0, 0, 0, 1), pose(0, 10, 720, 0, 1)] }).azimuthRangeDeg).toBe(360);
  });

  it('summarises per stimulus: time, azimuth range, coverage shares and time-weighted zoom percentiles', () => {
    const views = new ViewsAccumulator();
    views.add('x', 'o1', first);
    views.add('x', 'o2', second);
    views.add('x', 'o3', { mode: 'turntable', samples: [pose(0, 0, 0, 0, 1), pose(0, 16, 1, 0, 1)] });
    views.add('y', 'o1', { mode: 'inspect', samples: [] });
    const result = views.result()!;
    expect(result.stimuli).toHaveLength(1);
    const [x] = result.stimuli;
    expect(x).toMatchObject({ stimulus: 'x', trials: 2, observers: 2, inspectMs: { mean: 350, median: 350, min: 200 }, azimuthRangeDeg: { median: 65, min: 10 } });
    expect(x!.zoom).toEqual({ p10: 0.5, median: 1, p90: 2, min: 0.5, max: 2 });
    expect(x!.coverage).toEqual([
      { azimuthDeg: 330, elevationDeg: -60, ms: 100, share: 1 / 7 },
      { azimuthDeg: 0, elevationDeg: 0, ms: 300, share: 3 / 7 },
      { azimuthDeg: 30, elevationDeg: 0, ms: 100, share: 1 / 7 },
      { azimuthDeg: 60, elevationDeg: 15, ms: 100, share: 1 / 7 },
      { azimuthDeg: 90, elevationDeg: 15, ms: 100, share: 1 / 7 },
    ]);
    expect(x!.cellsSeenShare).toBe(5 / 144);
    expect(new ViewsAccumulator().result()).toBeNull();
  });

  it('draws the coverage as an azimuth × elevation heatmap, one cell per cell seen', async () => {
    const views = new ViewsAccumulator();
    views.add('x', 'o1', first);
    const [x] = views.result()!.stimuli;
    const svg = await renderSvg(specForViewCoverage('x', VIEW_CELLS, x!.coverage));
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg).toContain('azimuth (°)');
    // One rect per cell seen, labelled with its azimuth, elevation and share (the 330° cell holds the −10°/−20° poses).
    const cells = [...svg.matchAll(/aria-label="az: (\d+); el: (−?\d+); az2: \d+; el2: −?\d+; share: (\d+)%" role="graphics-symbol" aria-roledescription="rect mark"/g)].map((m) => [m[1], m[2], m[3]]);
    expect(cells).toEqual([['330', '−60', '20'], ['0', '0', '20'], ['30', '0', '20'], ['60', '15', '20'], ['90', '15', '20']]);
  });
});
