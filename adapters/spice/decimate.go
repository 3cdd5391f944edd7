package spice

import "sort"

// Decimate picks at most maxPoints indices of n points so that every
// series keeps its extremes: the points are cut into buckets and each bucket
// keeps, for every series, the index of its minimum and of its maximum, plus
// the first and last point overall. It uses the most buckets that stay within
// maxPoints. The global minimum and maximum of every series are always kept
// when maxPoints >= 2 x len(series) + 2; below that it falls back to evenly
// spaced points. The indices come back sorted.
func Decimate(n, maxPoints int, series [][]float64) []int {
	if n <= maxPoints {
		idx := make([]int, n)
		for i := range idx {
			idx[i] = i
		}
		return idx
	}
	if maxPoints < 1 {
		return nil
	}
	lo, hi := 1, maxPoints
	var best []int
	for lo <= hi {
		mid := (lo + hi) / 2
		sel := selectBuckets(n, mid, series)
		if len(sel) <= maxPoints {
			best = sel
			lo = mid + 1
		} else {
			hi = mid - 1
		}
	}
	if best != nil {
		return best
	}
	// Too many series for the budget: evenly spaced points.
	idx := make([]int, 0, maxPoints)
	if maxPoints == 1 {
		return []int{n - 1}
	}
	for i := 0; i < maxPoints; i++ {
		idx = append(idx, i*(n-1)/(maxPoints-1))
	}
	return idx
}

// selectBuckets cuts n points into b buckets and keeps each series'
// minimum and maximum index in each, plus the first and last point.
func selectBuckets(n, b int, series [][]float64) []int {
	keep := map[int]bool{0: true, n - 1: true}
	for k := 0; k < b; k++ {
		start, end := k*n/b, (k+1)*n/b
		if start >= end {
			continue
		}
		for _, s := range series {
			mi, ma := start, start
			for i := start + 1; i < end; i++ {
				if s[i] < s[mi] {
					mi = i
				}
				if s[i] > s[ma] {
					ma = i
				}
			}
			keep[mi], keep[ma] = true, true
		}
	}
	idx := make([]int, 0, len(keep))
	for i := range keep {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	return idx
}
