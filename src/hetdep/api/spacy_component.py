"""A spaCy pipeline component (``pip install 'hetdep[spacy]'``): a hetdep model parses spaCy's tokens.

    nlp = spacy.blank("fr")
    nlp.add_pipe("hetdep", config={"model": "MODEL", "scheme": "ud"})
    doc = nlp("Le chat dort.")
    doc[1].head, doc[1].dep_           # the "ud" tree, as spaCy's own
    doc[1]._.hetdep_heads["sud"]       # every scheme's head (a token index in the doc) ...
    doc[1]._.hetdep_deprels["sud"]     # ... and label
    doc[1]._.hetdep_deps["ud"]         # its enhanced graph's edges, (head token index, label), where the model has one

spaCy's tokens are hetdep's words (spaCy does not split multiword tokens); sentences are spaCy's
when an earlier component set them (a sentencizer), else the whole doc is one sentence. The
chosen scheme's tree becomes ``token.head`` and ``token.dep_``; every scheme's goes to the
extension attributes. The model tags the words with its own tagger.
"""

from __future__ import annotations

from spacy.language import Language
from spacy.tokens import Doc, Token

import hetdep

for _name in ("hetdep_heads", "hetdep_deprels", "hetdep_deps"):
    if not Token.has_extension(_name):
        Token.set_extension(_name, default=None)


class HetdepComponent:
    def __init__(self, model: str, scheme: str | None = None):
        self.model = hetdep.load(model)
        self.scheme = scheme or self.model.schemes[0]
        if self.scheme not in self.model.schemes:
            raise ValueError(f"{model} has the schemes {', '.join(self.model.schemes)}, not {self.scheme!r}")

    def __call__(self, doc: Doc) -> Doc:
        spans = list(doc.sents) if doc.has_annotation("SENT_START") else [doc[:]]
        spans = [span for span in spans if any(not token.is_space for token in span)]
        words = [[token for token in span if not token.is_space] for span in spans]
        if not words:
            return doc
        parsed = self.model.parse(tokens=[[token.text for token in sentence] for sentence in words])
        heads, labels = list(range(len(doc))), [""] * len(doc)  # white-space tokens hang on themselves
        for tokens, sentence in zip(words, parsed):
            for token, word in zip(tokens, sentence.words):
                token._.hetdep_heads = {s: (tokens[h - 1].i if h else token.i) for s, h in word.head.items()}
                token._.hetdep_deprels = dict(word.deprel)
                token._.hetdep_deps = {s: [(tokens[h - 1].i if h else token.i, label) for h, label in edges]
                                       for s, edges in word.deps.items()}
                heads[token.i] = token._.hetdep_heads[self.scheme]
                labels[token.i] = word.deprel[self.scheme]
                if not token.tag_:
                    token.pos_ = word.upos if word.upos != "_" else ""
        for space in (t for t in doc if t.is_space):  # white space hangs on the token before it
            heads[space.i] = space.i - 1 if space.i > 0 else space.i
            labels[space.i] = "dep"
        for token in doc:
            token.head = doc[heads[token.i]]
            token.dep_ = labels[token.i]
        return doc


@Language.factory("hetdep", default_config={"model": "", "scheme": None})
def make_hetdep(nlp: Language, name: str, model: str, scheme: str | None) -> HetdepComponent:
    return HetdepComponent(model, scheme)
