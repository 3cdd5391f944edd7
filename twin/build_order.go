package twin

import (
	"fmt"
	"slices"
	"strings"
)

// BuildStep is one joint in build order: its follower is attached to a
// base already built.
type BuildStep struct {
	Step  int
	Joint Joint
	// Chain is the joints from a root part down to this one, this one
	// last: the path a cable to its actuator follows.
	Chain []string
}

// Text is the step as a checklist reads it.
func (b BuildStep) Text() string {
	return fmt.Sprintf("Step %d: attach %s to %s via %s (%s joint)", b.Step, b.Joint.Follower, b.Joint.Base, b.Joint.Name, b.Joint.Type)
}

// BuildOrder sorts joints so each part is attached once every part it is
// mounted on is built: a part that no joint moves is a root, built first,
// and several roots (parallel subassemblies) are fine; a part two joints
// move (a closed linkage) is attached once both its bases are built. Parts
// are built in the order they are first named, and a part's joints go in
// the order they are listed, so the order is the same every time. A cycle
// is refused naming its joints: no order builds a part before itself.
func BuildOrder(joints []Joint) ([]BuildStep, error) {
	if err := CheckJoints(joints); err != nil {
		return nil, err
	}
	waiting := map[string]int{} // a part: the joints moving it whose base is not built yet
	var parts []string
	named := map[string]bool{}
	for _, j := range joints {
		for _, p := range []string{partKey(j.Base), partKey(j.Follower)} {
			if !named[p] {
				named[p] = true
				parts = append(parts, p)
			}
		}
		waiting[partKey(j.Follower)]++
	}
	var queue []string
	for _, p := range parts {
		if waiting[p] == 0 {
			queue = append(queue, p)
		}
	}
	done := make([]bool, len(joints))
	chainTo := map[string][]string{} // a built part: the joints that placed it
	var steps []BuildStep
	for len(queue) > 0 {
		built := queue[0]
		queue = queue[1:]
		for _, j := range joints {
			if partKey(j.Base) != built {
				continue
			}
			follower := partKey(j.Follower)
			if waiting[follower]--; waiting[follower] > 0 {
				continue
			}
			// Every base of the follower is built: attach it by each of
			// its joints.
			for i, into := range joints {
				if partKey(into.Follower) != follower {
					continue
				}
				chain := append(slices.Clone(chainTo[partKey(into.Base)]), into.Name)
				if chainTo[follower] == nil {
					chainTo[follower] = chain
				}
				done[i] = true
				steps = append(steps, BuildStep{Step: len(steps) + 1, Joint: into, Chain: chain})
			}
			queue = append(queue, follower)
		}
	}
	if len(steps) < len(joints) {
		return nil, cycleRefusal(joints, done)
	}
	return steps, nil
}

// partKey is how joints name one part: ignoring case and surrounding
// space.
func partKey(part string) string { return strings.ToLower(strings.TrimSpace(part)) }

// cycleRefusal names a cycle among the joints not placed. A part not built
// has a joint into it whose base is not built either, so walking from a
// joint to one such joint into its base comes back on itself.
func cycleRefusal(joints []Joint, done []bool) error {
	builtBase := func(j Joint) bool {
		for i, k := range joints {
			if partKey(k.Follower) == partKey(j.Base) && !done[i] {
				return false
			}
		}
		return true
	}
	intoUnbuilt := func(part string) int {
		for i, k := range joints {
			if !done[i] && partKey(k.Follower) == part && !builtBase(k) {
				return i
			}
		}
		return -1
	}
	start := -1
	for i, j := range joints {
		if !done[i] && !builtBase(j) {
			start = i
			break
		}
	}
	seenAt := map[int]int{}
	var path []int
	for i := start; i >= 0; i = intoUnbuilt(partKey(joints[i].Base)) {
		if at, seen := seenAt[i]; seen {
			path = path[at:]
			break
		}
		seenAt[i] = len(path)
		path = append(path, i)
	}
	// The walk went against the joints; turn it round, and start at the
	// joint listed first.
	slices.Reverse(path)
	first := slices.Index(path, slices.Min(path))
	path = append(path[first:], path[:first]...)
	var names, chain []string
	for _, i := range path {
		names = append(names, joints[i].Name)
		chain = append(chain, joints[i].Base)
	}
	chain = append(chain, joints[path[0]].Base)
	return Refusef("the joint graph has a cycle: %s (joints %s); no build order attaches a part before itself. "+
		"Fix the base or follower of one of these joints so every part hangs from a part that no joint moves",
		strings.Join(chain, " -> "), strings.Join(names, ", "))
}
