"""The arc-standard transition system, its features, the beam search (plain, DP, tag lattices), the parser and its training."""
