"""Every kind of model as one: choosing and training a parser from options (``training``).

The kinds' names live here, light to import, for the command line's choices.
"""

GRAPH_KINDS = ("dep1", "dep2")
CONSTITUENCY = "constituency"  # phrase structure (hetdep.constituency)
NEURAL = "neural"  # one learned encoder for every scheme and tag column (hetdep.neural)
PARSER_KINDS = ("arc-standard", *GRAPH_KINDS, CONSTITUENCY, NEURAL)
