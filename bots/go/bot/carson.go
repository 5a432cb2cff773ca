package main

import (
	"math/rand"
	"strconv"

	pb "menagerie/v1"
)

// Carson City Zoo on the typed CarsonCityZooObservation: capture the most valuable card
// in reach. A character is worth a little more than a zoo card of the same value (it
// also weakens its owner); a zoo card of value 0-3 may hide its value's mutant while that
// mutant is still unfound, which would cost the capturing character, so it is discounted.

var steps = map[string][2]int{"N": {-1, 0}, "E": {0, 1}, "S": {1, 0}, "W": {0, -1}}

func charValue(id string) float64 {
	v, err := strconv.Atoi(id[1:])
	if err != nil {
		return 0
	}
	return float64(v)
}

func captureValue(obs *pb.CarsonCityZooObservation, char string, target int) float64 {
	spaces := obs.GetSpaces()
	if target < 0 || target >= len(spaces) {
		return -100
	}
	sp := spaces[target]
	if sp.GetOccupant() != "" {
		return charValue(sp.GetOccupant()) + 0.5
	}
	top := int(sp.GetTopValue())
	v := float64(top)
	found := obs.GetMutantFound()
	if top >= 0 && top < 4 && top < len(found) && !found[top] {
		v -= 0.15 * charValue(char)
	}
	return v
}

func chooseCarson(obs *pb.CarsonCityZooObservation, legal []*pb.LegalAction, rng *rand.Rand) int {
	where := map[string]int{}
	for _, sp := range obs.GetSpaces() {
		if sp.GetOccupant() != "" {
			where[sp.GetOccupant()] = int(sp.GetSpace())
		}
	}
	best, bestValue := -1, -1e9
	for i, la := range legal {
		action := la.GetAction().GetCarsonCityZoo()
		if action == nil {
			continue
		}
		value := -1e9
		if place := action.GetPlace(); place != nil {
			value = captureValue(obs, place.GetChar(), int(place.GetSpace()))
		} else if move := action.GetMove(); move != nil {
			from, ok := where[move.GetChar()]
			step, known := steps[move.GetDir()]
			if ok && known {
				r, c := from/5+step[0], from%5+step[1]
				value = captureValue(obs, move.GetChar(), r*5+c)
			}
		}
		value += rng.Float64() * 0.01 // random tie-break
		if value > bestValue {
			best, bestValue = i, value
		}
	}
	return best
}
