"""Graph-based parsers (first and second order, k-best) and joint inference across treebanks (zhou-zhao2013)."""
