"""Each kind of parsing model's own behaviour, one module per family: a subclass of
:class:`hetdep.models.parsing.OpenModels` that says how the kind is loaded, which choices it takes,
how it tags and parses. :mod:`hetdep.models.opening` lists them; nothing else asks a model's kind."""
