"""hetdep: heterogeneous dependency parsing — several annotation schemes of one sentence, parsed jointly.

``nlp = hetdep.load()`` opens the model shipped with hetdep (French, SUD + UD), ``hetdep.load("MODEL")`` another; ``doc = nlp("raw text")`` parses.
"""

__version__ = "0.1.0"


def load(path=None, *, beam=None, helper=None, threads=1, quiet=False, treebank=None, to_dependency=None, precision=None):
    """Open a model: a directory, an installed model's name, or by default the shipped one (see :func:`hetdep.api.model.load`); imported on first use, so that
    ``import hetdep`` stays cheap."""
    from hetdep.api.model import load as load_model

    return load_model(path, beam=beam, helper=helper, threads=threads, quiet=quiet, treebank=treebank,
                      to_dependency=to_dependency, precision=precision)
