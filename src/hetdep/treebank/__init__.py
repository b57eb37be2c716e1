"""Treebank files and trees: CoNLL-U, bracketed trees, same-sentence pairs, tag columns, the pseudo-projective transform."""
