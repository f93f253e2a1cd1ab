import { blocks, day, num, percent, table } from '../markdown.js';
import { resultDate, runLine, type Results, type Stamped } from '../results.js';
import type { BenchSection } from '../section.js';

interface ImageRow {
  ratio: number;
  mode: string;
  drawn: string;
  /** A percentage (0–100), to 2 decimals. */
  equalShare: number;
  worst: number;
}
interface ColourRow {
  clip: string;
  path: string;
  upload: string | null;
  worst: number;
}
interface FidelityResult extends Stamped {
  host?: { cpus: number; model?: string; load?: number[] };
  gpu?: boolean;
  dryRun?: boolean;
  machine?: { gpuModel?: string; driver?: string; os?: string };
  renderers?: string[];
  images?: {
    rows: ImageRow[];
    alpha: { ratio: number; equalShare: number; worst: number }[];
    jpeg: { ratio: number; equalToLibjpeg: number; worstAgainstImg: number }[];
  };
  colour?: ColourRow[];
  /** Why a run stopped early (what it measured before is kept). */
  error?: string;
}
interface Run {
  file: string;
  /** The renderer in words: the GPU's model, or SwiftShader (the virtual display's software default). */
  label: string;
  result: FidelityResult;
}

const FILES = ['fidelity.json', 'fidelity-gpu.json'];

function runsOf(results: Results): Run[] {
  return FILES.flatMap((file) => {
    const result = results.get<FidelityResult>(file);
    if (!result) return [];
    return [{ file, label: result.gpu ? (result.machine?.gpuModel ?? 'GPU') : 'SwiftShader', result }];
  });
}

const unique = <T>(values: readonly T[]): T[] => [...new Set(values)];
const share = (value: number | undefined) => percent(value, 2, true);
const equalAndWorst = (row: { equalShare: number; worst: number } | undefined) => (row ? `${share(row.equalShare)} / ${num(row.worst)}` : '—');
// "<video> element" would be read as an HTML tag
const pathName = (path: string) => path.replace(/<(\w+)>/g, '`<$1>`');
const isNew = (row: ImageRow) => row.mode === 'native' || row.mode === 'integer';
const exactRows = (run: Run) => run.result.images?.rows.filter(isNew) ?? [];
/** The goal of the pixel-exact layouts: every drawn pixel equal to the file's at every ratio. */
const layoutsExact = (run: Run) => exactRows(run).length > 0 && exactRows(run).every((row) => row.equalShare === 100 && row.worst === 0);
const stageWorst = (run: Run) => {
  const worst = (run.result.colour ?? []).filter((row) => row.path.startsWith('stage')).map((row) => row.worst);
  return worst.length > 0 ? Math.max(...worst) : undefined;
};

function imageTable(runs: Run[]): string {
  const keys = unique(runs.flatMap((run) => (run.result.images?.rows ?? []).map((row) => `${row.ratio}|${row.mode}`)));
  const rows = keys.map((key) => {
    const found = runs.map((run) => run.result.images?.rows.find((row) => `${row.ratio}|${row.mode}` === key));
    const first = found.find((row) => row !== undefined)!;
    const drawn = unique(found.filter((row) => row !== undefined).map((row) => row!.drawn));
    return [num(first.ratio, 2), first.mode === 'native' || first.mode === 'integer' ? `\`${first.mode}\`` : first.mode, drawn.join(' / '), ...found.map(equalAndWorst)];
  });
  return table(['Ratio', 'Layout', 'Drawn (device px)', ...runs.map((run) => `${run.label}: pixels equal to the file / worst channel`)], rows, [0]);
}

function alphaJpegTable(runs: Run[]): string {
  const ratios = unique(runs.flatMap((run) => (run.result.images?.alpha ?? []).map((row) => row.ratio)));
  const rows = ratios.map((ratio) => [
    num(ratio, 2),
    ...runs.map((run) => equalAndWorst(run.result.images?.alpha.find((row) => row.ratio === ratio))),
    ...runs.map((run) => share(run.result.images?.jpeg.find((row) => row.ratio === ratio)?.equalToLibjpeg)),
    ...runs.map((run) => num(run.result.images?.jpeg.find((row) => row.ratio === ratio)?.worstAgainstImg)),
  ]);
  return table(
    [
      'Ratio',
      ...runs.map((run) => `Alpha PNG (\`integer\`), ${run.label}: equal / worst`),
      ...runs.map((run) => `JPEG (\`native\`), ${run.label}: equal to libjpeg-turbo`),
      ...runs.map((run) => `JPEG, ${run.label}: worst against Chromium's \`<img>\``),
    ],
    rows,
    [0],
  );
}

function colourTable(runs: Run[]): string {
  const measured = runs.filter((run) => run.result.colour);
  const clips = unique(measured.flatMap((run) => run.result.colour!.map((row) => row.clip)));
  const paths = unique(measured.flatMap((run) => run.result.colour!.map((row) => row.path)));
  const rows = clips.map((clip) => [
    `\`${clip}\``,
    ...paths.map((path) => measured.map((run) => num(run.result.colour!.find((row) => row.clip === clip && row.path === path)?.worst)).join(' / ')),
  ]);
  return blocks(
    `Worst channel difference over the bars, ${measured.map((run) => run.label).join(' / ')}:`,
    table(['Clip', ...paths.map(pathName)], rows),
  );
}

function hostLine(run: Run): string {
  const { host, machine, renderers } = run.result;
  const gpu = run.result.gpu
    ? `${machine?.gpuModel ?? 'GPU'}, driver ${machine?.driver ?? '—'}, ${machine?.os ?? 'OS not recorded'}, WebGL renderer \`${(renderers ?? []).join(', ') || 'not recorded'}\`; `
    : 'SwiftShader; ';
  const dryRun = run.result.dryRun ? ' A dry run of the `--gpu` code path: not GPU figures.' : '';
  return `${gpu}${num(host?.cpus)} × ${host?.model ?? 'unknown CPU'}, load average at the start (the bench's own record) ${num(host?.load?.[0], 2)}.${dryRun}`;
}

/** One figure per run, said once when every run gives the same: "**100 %** (SwiftShader, NVIDIA H200)". */
function perRun(runs: Run[], figure: (run: Run) => string): string {
  const texts = runs.map(figure);
  if (unique(texts).length === 1) return `**${texts[0]}** (${runs.map((run) => run.label).join(', ')})`;
  return runs.map((run, i) => `**${texts[i]}** (${run.label})`).join(', ');
}

export const fidelitySection: BenchSection = {
  title: 'bench:fidelity',
  latest(results) {
    const runs = runsOf(results);
    if (runs.length === 0) return { ran: 'not run', headline: '—', files: FILES };
    const ratios = unique(runs.flatMap((run) => exactRows(run).map((row) => row.ratio)));
    const colourRuns = runs.filter((run) => run.result.colour);
    const lowest = (run: Run) => share(Math.min(...exactRows(run).map((row) => row.equalShare)));
    return {
      ran: runs.map((run) => (run.result.gpu ? `${run.label} ${day(resultDate(run.result))}` : day(resultDate(run.result)))).join('; '),
      headline:
        `\`integer\` and \`native\` at device pixel ratios ${num(Math.min(...ratios), 2)}–${num(Math.max(...ratios), 2)}: ` +
        `${perRun(runs, lowest)} of drawn pixels equal the file (the lowest share)` +
        (colourRuns.length > 0 ? `; colour bars: the stage within ${perRun(colourRuns, (run) => num(stageWorst(run)))} levels of ffmpeg's decode` : ''),
      files: FILES,
    };
  },
  render(results: Results) {
    const runs = runsOf(results);
    const ratios = unique(runs.flatMap((run) => (run.result.images?.rows ?? []).map((row) => row.ratio)));
    const withImages = runs.filter((run) => run.result.images);
    return blocks(
      '**`npm run bench:fidelity`** (`bench/fidelity/run.ts`; `--gpu` on the GPU machine, `scripts/gpu/run-on-gpu.sh ' +
        'fidelity`): what the participant sees against the file, captured on the virtual display (`testkit/virtualDisplay.ts`, ' +
        `each frame a PNG in device pixels), at device pixel ratios ${ratios.map((r) => num(r, 2)).join(', ') || '—'}. ` +
        'Images: a noise PNG drawn with the layout before the pixel-exact layouts (whole CSS pixels, filtered linearly: ' +
        "the baseline, measured in the same run) and with `native` and `integer` ([Scaling](pixels.md#scaling)); the share " +
        "of drawn device pixels equal to the file's pixel they show, and the worst channel difference. Also an alpha PNG " +
        "(`integer`, composited over the background) and a JPEG (`native`) against libjpeg-turbo's decode and against " +
        "Chromium's own `<img>`. Video colour: each colour-bar clip of `tests/fixtures/colour` (75 % bars and a skin tone) " +
        "on the stage's planes path, and through the browser's own conversions in the same run (`copyTo` RGBA, the " +
        "stage's path before; the `VideoFrame` upload; the `<video>` element); the worst channel difference over the bars " +
        "from ffmpeg's decode with the clip's matrix and range, as players show it (turned).",
      ...runs.map((run) => blocks(runLine(run.file, run.result), hostLine(run), run.result.error && `The run stopped early: ${run.result.error}`)),
      FILES.filter((file) => !runs.some((run) => run.file === file))
        .map((file) => runLine(file, undefined))
        .join('\n\n'),
      withImages.length > 0 &&
        blocks(
          'Images, each cell "pixels equal to the file / worst channel":',
          imageTable(withImages),
          `Goal: with \`native\` and \`integer\`, every drawn pixel equal to the file's at every ratio (100 %, worst channel 0): ` +
            `${withImages.map((run) => `${run.label} **${layoutsExact(run) ? 'met' : 'not met'}**`).join(', ')}.`,
          alphaJpegTable(withImages),
        ),
      runs.some((run) => run.result.colour) ? colourTable(runs) : runs.length > 0 && 'Video colour: not measured in these runs.',
      runs.length > 0 &&
        'The `<video>` element and the `VideoFrame` upload are the browser converting the frame itself. The `VideoFrame` ' +
          "upload neither turns a rotated clip nor reads the container's tags of an untagged HD clip, and the element " +
          'cannot be timed to the frame ([Frame-accurate timing](timing.md)). How the layouts and the stage\'s conversion ' +
          'work: [Pixel-exact stimuli](pixels.md).',
    );
  },
};
