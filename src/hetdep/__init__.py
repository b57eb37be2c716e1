"""hetdep: heterogeneous dependency parsing — several annotation schemes of one sentence, parsed jointly.

``nlp = hetdep.load("MODEL")`` opens a trained model; ``doc = nlp("raw text")`` parses.
"""

__version__ = "0.1.0"


def load(path, *, beam=None, helper=None, threads=1, quiet=False):
    """Open a model directory (see :func:`hetdep.api.model.load`); imported on first use, so that
    ``import hetdep`` stays cheap."""
    from hetdep.api.model import load as load_model

    return load_model(path, beam=beam, helper=helper, threads=threads, quiet=quiet)
