"""Reference fixtures for src/analysis/asap (run by hand; CI and the tests never run Python).

Runs the reference ASAP implementation (Mikhailiuk, Wilmot, Perez-Ortiz, Yue, Mantiuk, ICPR 2020;
github.com/gfxdisp/asap, file python/asap_cpu.py, MIT) on seeded count matrices and writes, per case,
the inputs and what the reference computes: posterior means and standard deviations (ASAP.get_scores after
run_asap), the expected-information-gain matrix (compute_information_gain_mat's kl_divs), the single pair of
largest gain (get_maximum), the batch of pairs (minimum spanning tree of 1/gain) and every random draw the
reference made, so that the TypeScript can replay them.

Rerun (from the repository root):
    git clone https://github.com/gfxdisp/asap /tmp/asap        # fixtures made at commit 90082a3
    apt-get install -y python3-numpy python3-scipy python3-networkx   # Debian 12: numpy 1.24, scipy 1.10, networkx 2.8
    /usr/bin/python3 scripts/asap-reference.py /tmp/asap/python tests/analysis/fixtures/asap
then `npx vitest run src/analysis/asap`.

asap_cpu.py calls nx.from_numpy_matrix, which networkx 3.0 removed; under networkx >= 3 this script aliases it
to nx.from_numpy_array (in networkx 2.x from_numpy_matrix only forwards to from_numpy_array), so the script also
runs with a newer numpy/scipy/networkx (checked: numpy 2.4, scipy 1.17, networkx 3.6 give the same pairs and
gains equal to ~1e-15). The committed fixtures name the versions that made them.

Randomness in the reference: `random.random()` once per candidate pair (selective_eig test, drawn even when
selective_eig is off), `random.randint(0, k-1)` to pick among equal maxima (get_maximum), and
`np.random.rand(N, N)` for the first batch when fewer than N-1 comparisons exist. The script replaces the module's
`random` by a seeded recorder and wraps np.random.rand, and stores the draws.
"""
import json
import os
import random
import sys
import warnings

import networkx as nx
import numpy as np
import scipy

ASAP_DIR = sys.argv[1]
OUT = sys.argv[2]
sys.path.insert(0, ASAP_DIR)
if not hasattr(nx, 'from_numpy_matrix'):  # networkx >= 3.0
    nx.from_numpy_matrix = nx.from_numpy_array
import asap_cpu  # noqa: E402

warnings.simplefilter('ignore')


class Recorder:
    """Stands in for the `random` module inside asap_cpu: seeded, and keeps every draw."""

    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.uniforms = []
        self.ints = []

    def random(self):
        x = self.rng.random()
        self.uniforms.append(x)
        return x

    def randint(self, a, b):
        x = self.rng.randint(a, b)
        self.ints.append([a, b, x])
        return x


def run_case(name, M, seed, selective=False, approx=False, note=''):
    M = np.asarray(M, dtype=int)
    N = M.shape[0]
    recorder = Recorder(seed)
    asap_cpu.random = recorder
    np.random.seed(seed)
    rand_draws = []
    original_rand = np.random.rand

    def recording_rand(*shape):
        x = original_rand(*shape)
        rand_draws.extend(x.ravel().tolist())
        return x

    np.random.rand = recording_rand
    asap = asap_cpu.ASAP(N, selective_eig=selective, approx=approx)
    captured = {}
    compute = asap.compute_information_gain_mat

    def capture(n, G):
        kl_divs, pair = compute(n, G)
        captured['gain'] = kl_divs.copy()
        captured['pair'] = pair.copy()
        return kl_divs, pair

    asap.compute_information_gain_mat = capture
    try:
        pairs = asap.run_asap(M.copy(), mst_mode=True)
    finally:
        np.random.rand = original_rand
        asap_cpu.random = random
    mean, std = asap.get_scores()
    return {
        'name': name,
        'note': note,
        'seed': seed,
        'options': {'selective': selective, 'approx': approx},
        'M': M.tolist(),
        'mean': mean.tolist(),
        'std': std.tolist(),
        'gain': captured['gain'].tolist(),
        'single_pair': captured['pair'][0].tolist(),
        'pairs': np.asarray(pairs).tolist(),
        'draws': {'uniform': recorder.uniforms, 'randint': recorder.ints, 'rand': rand_draws},
    }


def simulated(n, seed, density, max_trials, spread=1.5):
    """Counts from Thurstone observers (noise variance 1, as ASAP's model) on true scores in [0, spread]."""
    rng = np.random.RandomState(seed)
    truth = rng.uniform(0, spread, n)
    M = np.zeros((n, n), dtype=int)
    for i in range(n):
        for j in range(i + 1, n):
            if rng.rand() >= density:
                continue
            trials = rng.randint(1, max_trials + 1)
            for _ in range(trials):
                if truth[i] - truth[j] + rng.randn() > 0:
                    M[i, j] += 1
                else:
                    M[j, i] += 1
    return M


def mst_case(name, gain, note):
    """The reference's batch step alone, on a gain matrix with exact ties (Kruskal's tie order)."""
    gain = np.asarray(gain, dtype=float)
    asap = asap_cpu.ASAP(gain.shape[0])
    pairs = asap.compute_minimum_spanning_tree(gain.copy())
    return {'name': name, 'note': note, 'gain': gain.tolist(), 'pairs': np.asarray(pairs).tolist()}


def main():
    os.makedirs(OUT, exist_ok=True)
    readme = [[0, 1, 2, 3, 1], [1, 0, 2, 3, 1], [1, 2, 0, 3, 1], [1, 2, 3, 0, 1], [1, 2, 3, 1, 0]]
    # n = 6 in two groups never compared with each other (disconnected design), with a tie (2-2) and a zero pair.
    disconnected = np.zeros((6, 6), dtype=int)
    disconnected[0, 1], disconnected[1, 0] = 2, 2
    disconnected[1, 2], disconnected[2, 1] = 3, 0
    disconnected[3, 4], disconnected[4, 3] = 1, 4
    disconnected[5, 4] = 2
    unanimous = simulated(10, 4, 0.5, 4)
    unanimous[0, 9], unanimous[9, 0] = 12, 0  # one pair decided every time
    cases = [
        run_case('n4-dense', simulated(4, 1, 1.0, 6), 1, note='every pair compared 1-6 times'),
        run_case('n5-readme', readme, 11, note='the example of the reference readme'),
        run_case('n6-disconnected', disconnected, 2, note='two groups never compared; a 2-2 tie; zero pairs'),
        run_case('n8-ties', simulated(8, 3, 0.6, 3, spread=0.0), 3, note='all true scores equal, sparse'),
        run_case('n10-unanimous', unanimous, 4, note='sparse, one pair 12-0'),
        run_case('n20-sparse', simulated(20, 5, 0.25, 5, spread=3.0), 5, note='a quarter of the pairs compared'),
        run_case('n6-first-round', np.array([[0, 1, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0],
                                             [0, 0, 0, 0, 0, 0], [0, 0, 0, 1, 0, 0], [0, 0, 0, 0, 0, 0]]), 6,
                 note='fewer than N-1 comparisons: random tree (np.random.rand)'),
        run_case('n7-empty', np.zeros((7, 7), dtype=int), 7, note='no comparison yet: every gain equal'),
        run_case('n8-selective', simulated(8, 8, 0.7, 4), 8, selective=True, note='selective_eig=True'),
        run_case('n8-approx', simulated(8, 9, 0.7, 4), 9, approx=True, note='ASAP-approx'),
        run_case('n10-approx-selective', simulated(10, 10, 0.5, 3), 10, selective=True, approx=True,
                 note='ASAP-approx with selective_eig'),
    ]
    ties = np.zeros((7, 7))
    for i in range(7):
        for j in range(i):
            ties[i, j] = [1.0, 2.0, 0.5][(i * 7 + j) % 3]
    ties[4, 2] = 0.0  # no edge
    ties[6, 5] = -1.0  # skipped by selective_eig: no edge
    forest = np.zeros((6, 6))
    forest[1, 0], forest[2, 1], forest[2, 0], forest[4, 3], forest[5, 3], forest[5, 4] = 1, 1, 1, 2, 2, 2
    mst = [
        mst_case('n7-tied-gains', ties, 'gains 0.5, 1, 2 repeated; one zero and one -1 (no edge)'),
        mst_case('n6-forest', forest, 'two components with equal gains: a spanning forest of 4 pairs'),
    ]
    versions = {'numpy': np.__version__, 'scipy': scipy.__version__, 'networkx': nx.__version__,
                'python': sys.version.split()[0]}
    out = {
        'source': 'gfxdisp/asap python/asap_cpu.py (commit 90082a3), fresh ASAP(N) per case, run_asap(M, mst_mode=True)',
        'made_by': 'scripts/asap-reference.py',
        'versions': versions,
        'cases': cases,
        'mst': mst,
    }
    path = os.path.join(OUT, 'asap-reference.json')
    with open(path, 'w') as f:
        json.dump(out, f, indent=1)
        f.write('\n')
    print('wrote', path, versions)


main()
