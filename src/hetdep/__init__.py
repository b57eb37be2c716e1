"""hetdep: heterogeneous dependency parsing — several annotation schemes of one sentence, parsed jointly."""

__version__ = "0.1.0"
