"""Pictures of trees: SVG for a sentence (two schemes, or a prediction against its gold tree), HTML for many."""
