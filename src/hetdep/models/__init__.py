"""Every kind of model as one: choosing and training a parser from options (``training``).

The kinds' names live here, light to import, for the command line's choices.
"""

GRAPH_KINDS = ("dep1", "dep2")
CONSTITUENCY = "constituency"  # phrase structure (hetdep.constituency)
NEURAL = "neural"  # one learned encoder for every scheme and tag column (hetdep.neural)
NEURAL_CONSTITUENCY = "constituency-neural"  # that network with a span head: phrase structure (and dependencies)
PARSER_KINDS = ("arc-standard", *GRAPH_KINDS, CONSTITUENCY, NEURAL, NEURAL_CONSTITUENCY)
# A model of several treebanks keeps the taggers of its treebanks after the first here, one folder
# each (TREEBANK_TAGGERS/NAME/feats): FEATS conventions differ between treebanks (fr-parisstories
# has Case, fr-gsd almost no NumType), while UPOS and lemmas agree and are learned from all.
TREEBANK_TAGGERS = "treebank-taggers"
