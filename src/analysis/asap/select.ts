/**
 * Which pairs to compare next, from a matrix of expected information gain (gain[i·n + j], the reference fills the
 * lower triangle i > j; any layout works, the two halves are added as the reference does).
 *
 * Batch (ASAP.compute_minimum_spanning_tree, asap_cpu.py l. 40–61): the minimum spanning tree of 1/gain, n − 1
 * pairs that connect every condition with the most total gain (the paper's batch mode). The reference builds a
 * networkx graph from the matrix and calls nx.minimum_spanning_tree (Kruskal by default); the pairs come out
 * sorted by weight. We reproduce its order exactly, ties included:
 *
 * - weight(i, j) = 1/(gain[i][j] + gain[j][i]); a pair whose summed gain is ≤ 0 (never evaluated: −1 from the
 *   selective evaluation, or 0) has weight 1/∞ = 0, which nx.from_numpy_array reads as "no edge". If these
 *   leave the graph disconnected the result is a spanning forest with fewer than n − 1 pairs.
 * - Kruskal sorts the edges by weight with Python's stable sort, so equal weights keep the graph's edge order,
 *   (0,1), (0,2), …, (0,n−1), (1,2), …: lexicographic, smaller index first.
 * - The reference then lists the tree's edges (T.edges(): by smaller index, then in the order Kruskal accepted
 *   them) and stable-sorts them by weight. Within one weight Kruskal accepted them in lexicographic order, so the
 *   list is Kruskal's order of acceptance: largest gain first, equal gains lexicographic. Each pair is written
 *   [smaller, larger].
 * - Equal weights are equal doubles: 1/g of two gains one ulp apart may round to the same weight, and then the
 *   lexicographic order decides, as in the reference.
 *
 * Single pair (ASAP.get_maximum, l. 120–127): the largest entry of the whole matrix; among equal maxima the
 * reference draws one at random (random.randint over them in row-major order). We draw `random.int(count)` over
 * the same row-major list, so a seeded Random makes it reproducible.
 */

export type Pair = [number, number];

/** The reference's batch: minimum spanning tree (forest) of 1/gain, largest gain first (see above). */
export function minimumSpanningPairs(gain: ArrayLike<number>, n: number): Pair[] {
  interface Edge {
    i: number;
    j: number;
    weight: number;
  }
  const edges: Edge[] = [];
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const summed = gain[i * n + j] + gain[j * n + i];
      if (Number.isNaN(summed)) throw new RangeError(`information gain of pair (${i}, ${j}) is NaN`);
      if (summed <= 0) continue; // inf_mat[inf_mat<=0] = np.inf; 1/inf = 0: no edge
      edges.push({ i, j, weight: 1 / summed });
    }
  }
  // Array.prototype.sort is stable (ES2019), like Python's sorted: ties keep the lexicographic order.
  edges.sort((a, b) => a.weight - b.weight);
  const parent = Int32Array.from({ length: n }, (_, k) => k);
  const find = (k: number): number => {
    while (parent[k] !== k) {
      parent[k] = parent[parent[k]];
      k = parent[k];
    }
    return k;
  };
  const tree: Pair[] = [];
  for (const edge of edges) {
    const ri = find(edge.i);
    const rj = find(edge.j);
    if (ri === rj) continue;
    parent[ri] = rj;
    tree.push([edge.i, edge.j]); // already in the reference's output order (see above)
    if (tree.length === n - 1) break;
  }
  return tree;
}

/** The reference's single pair: an entry of largest gain, [row, column] (row > column for the reference's matrix). */
export function bestPair(gain: ArrayLike<number>, n: number, random: { int(count: number): number }): Pair {
  let max = -Infinity;
  for (let k = 0; k < n * n; k++) if (gain[k] > max) max = gain[k];
  const ties: number[] = [];
  for (let k = 0; k < n * n; k++) if (gain[k] === max) ties.push(k);
  if (ties.length === 0) throw new RangeError('information gain matrix has no maximum (empty or NaN)');
  const k = ties[random.int(ties.length)];
  return [Math.floor(k / n), k % n];
}
