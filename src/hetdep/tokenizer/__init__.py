"""Raw text to tokens: sentence segmentation, tokenization and multiword-token expansion learned from a UD treebank."""
