"""The neural parser (``hetdep train --parser neural``): one learned encoder of the sentence shared by
every scheme and tag column, in the manner of Kiperwasser & Goldberg 2016 and Dozat & Manning 2017.

Each word is a trained embedding of its form plus a character-level BiLSTM encoding of it (so
unseen words get a representation); a stack of BiLSTMs reads the sentence; on top, tag heads
(UPOS, XPOS where the treebank has it) and, per scheme, a biaffine arc scorer and a biaffine label
scorer. A joint model trains one encoder on the sum of every head's loss (zhang2014's idea, one
representation of the sentence for both schemes); trees are decoded exactly from the arc scores.

``shape`` holds the network's sizes, ``network`` its modules (PyTorch, for training), ``data``
turns sentences into arrays, ``training`` the loop, ``inference`` the forward pass in NumPy and
``parser`` the saved model that parses with it: PyTorch trains a model, and is not needed to parse.
"""


def torch_module():
    """PyTorch, or one clear line saying how to install it (it is an optional dependency)."""
    try:
        import torch
    except ImportError:
        from hetdep.errors import HetdepError

        raise HetdepError("the neural parser needs PyTorch: pip install 'hetdep[neural]' (its CPU build is enough)") from None
    return torch
