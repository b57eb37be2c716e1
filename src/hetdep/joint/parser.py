"""The joint model (zhang2014 section 3): one beam parses a sentence in two schemes at once.

An item holds an arc-standard state per scheme; the interleaving parameter t decides which
scheme acts at each step (:func:`schedule`), and the acting scheme's features include the
guided templates, which read the other scheme's partial tree. One weight table, one beam,
early update over the joint action sequence. The compiled search is :mod:`hetdep.joint._search`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable, Iterator

import numpy as np

from hetdep.errors import HetdepError
from hetdep.joint import _lattice, _search
from hetdep.joint.schedule import INFINITE, parse_t, schedule, t_text
from hetdep.learn.model_files import ModelFileError, SavedModel, check_width, label_id
from hetdep.learn.perceptron import DECODE
from hetdep.learn.vocab import ParseStats, Vocab
from hetdep.learn.weights import TrainedWeights
from hetdep.transition import _beam
from hetdep.transition.features import GUIDES, TEMPLATES
from hetdep.transition.parser import encode_lattice, no_gold_tags, template_array
from hetdep.transition.system import Moves, oracle
from hetdep.treebank.conllu import Sentence
from hetdep.treebank.projectivity import LIFT, deprojectivize, projectivize
from hetdep.treebank.tags import TAG_COLUMNS, lattice_candidates


def is_rich(guide: str) -> bool:
    """Whether the compiled search reads the rich guide's atoms 43-46 (and fires its guided
    templates only where the other scheme has shifted S0 or S1), see :mod:`hetdep.joint._search`."""
    return guide == "rich"


def guided_templates(guide: str) -> np.ndarray:
    """The joint model's templates: the 70 baseline ones, then those of the guide ('none': the
    paper's '/wo' ablation; 'paper': its 18 guided templates; 'rich': those and ours, see
    ``features.GUIDES``)."""
    if guide not in GUIDES:
        raise HetdepError(f"unknown guide {guide!r}: choose one of {', '.join(GUIDES)}")
    return template_array(TEMPLATES + GUIDES[guide])


class JointParser(SavedModel):
    """A trained joint model: shared vocabularies, a label set per scheme, t, and averaged weights."""

    KIND = "joint"
    WHAT = "joint model"

    def __init__(self, words: Vocab, tags: Vocab, labels: tuple[list[str], list[str]], root_labels: tuple[int, int],
                 weights: TrainedWeights, *, t: int = INFINITE, guide: str = "rich", beam: int = 64,
                 tag_column: str = "upos", projective_encoding: str = "head", lattice: bool = False,
                 lattice_weight: float = 0.0):
        self.words, self.tags = words, tags
        self.lattice = lattice  # parse over each word's candidate tags (MISC TagKBest), one tag for both schemes
        self.lattice_weight = lattice_weight  # times the tagger's log-probability of a chosen candidate
        self.labels = labels
        self.root_labels = root_labels
        self.weights = weights
        self.t, self.guide, self.beam = t, guide, beam
        self.tag_column = tag_column
        self.projective_encoding = projective_encoding
        self.templates = guided_templates(guide)
        self.rich = is_rich(guide)
        self.stats = ParseStats()

    def encode(self, sentence: Sentence) -> tuple[np.ndarray, np.ndarray]:
        return self.words.encode(sentence.forms), self.tags.encode(sentence.column(TAG_COLUMNS[self.tag_column]))

    def search(self, words: np.ndarray, tags: np.ndarray, beam: int | None = None, forced: np.ndarray | None = None,
               who: np.ndarray | None = None):
        """The best joint action sequence, the schedule (which scheme acts at each step) and the score;
        ``forced[k] >= 0`` fixes step k's action (``who``: the schedule, when the caller built it)."""
        n = len(words) - 1
        who = schedule(n, self.t) if who is None else who
        gold = np.zeros(4 * n, dtype=np.int32)
        if forced is None:
            forced = np.full(4 * n, -1, dtype=np.int32)
        actions, _, score = _search.joint_search(words, tags, n, beam or self.beam, self.templates, self.rich, self.weights.table,
                                                self.weights.rows, len(self.labels[0]), len(self.labels[1]), who, gold,
                                                DECODE, forced)
        return actions, who, score

    def _given_tree_actions(self, sentence: Sentence, scheme: int) -> np.ndarray:
        """The oracle actions of a given tree in one scheme, with this model's labels.

        A label the model never saw stands in as its nearest known relation: without the
        lift mark, then without a subtype after '@' or ':' (``comp:obj@lvc`` -> ``comp:obj``
        -> ``comp``), and failing all of these the generic ``dep`` (or ``udep``, or the first
        label); such words are counted in ``stats.unknown_labels``. The given tree itself is
        written back unchanged.
        """
        if any(h < 0 for h in sentence.heads):
            raise HetdepError(f"{sentence.describe()}: the given tree has no HEAD ('_') for some word")
        heads, labels = projectivize(sentence.heads, sentence.deprels, self.projective_encoding)
        moves = Moves(self.labels[scheme])
        ids = []
        for k, label in enumerate(labels):
            plain = label.split(LIFT, 1)[0]
            candidates = (label, plain, plain.split("@", 1)[0], plain.split("@", 1)[0].split(":", 1)[0], "dep", "udep")
            known = next((c for c in candidates if c in moves.index), moves.labels[0])
            self.stats.count(unknown_labels=known not in (label, plain))
            ids.append(moves.index[known])
        return np.array(oracle(heads, ids, moves), dtype=np.int32)

    def parse_sentence(self, sentence: Sentence, beam: int | None = None, given: int | None = None) -> tuple[Sentence, Sentence]:
        """The sentence with scheme a's tree and with scheme b's tree (non-projective arcs restored).

        ``given`` = 0 (or 1) keeps the sentence's own tree as scheme a's (or b's) and parses only
        the other scheme, with the guided features reading the given tree: treebank conversion.
        """
        if self.lattice and given is None and len(sentence):
            return self._parse_lattice(sentence, beam)
        words, tags = self.encode(sentence)
        self.stats.record(words, tags, sentence.column(TAG_COLUMNS[self.tag_column]))
        forced = who = None
        if given is not None:
            who = schedule(len(sentence), self.t)
            forced = np.full(len(who), -1, dtype=np.int32)
            forced[who == given] = self._given_tree_actions(sentence, given)
        actions, who, _ = self.search(words, tags, beam, forced, who)
        trees = []
        for s in (0, 1):
            if s == given:
                trees.append(sentence)
                continue
            heads, label_ids = _beam.actions_to_tree(actions[who == s], len(sentence), len(self.labels[s]), self.root_labels[s])
            heads, labels = deprojectivize([int(h) for h in heads], [self.labels[s][i] for i in label_ids])
            trees.append(sentence.with_tree(heads, labels))
        return trees[0], trees[1]

    def _parse_lattice(self, sentence: Sentence, beam: int | None) -> tuple[Sentence, Sentence]:
        """Both trees over the sentence's tag lattice; the chosen tags go into both outputs' tag column."""
        column = TAG_COLUMNS[self.tag_column]
        n = len(sentence)
        words = self.words.encode(sentence.forms)
        options = lattice_candidates(sentence, column)
        self.stats.count(lattice_words=sum(len(tags) > 1 for tags in options))
        candidates, counts, logp = encode_lattice(self.tags, options)
        self.stats.record(words, candidates[:n + 1, 0], [tags[0][0] for tags in options])
        who = schedule(n, self.t)
        actions, _, _, chosen = _lattice.joint_search(words, candidates, counts, logp, self.lattice_weight, n,
                                                      beam or self.beam, self.templates, self.rich,
                                                      self.weights.table, self.weights.rows, len(self.labels[0]),
                                                      len(self.labels[1]), who, np.zeros(4 * n, dtype=np.int32),
                                                      no_gold_tags(n), DECODE)
        picked = [next(tag for (tag, _), tag_id in zip(tags, candidates[k + 1]) if tag_id == chosen[k + 1])
                  for k, tags in enumerate(options)]
        trees = []
        for s in (0, 1):
            heads, label_ids = _beam.actions_to_tree(actions[who == s], n, len(self.labels[s]), self.root_labels[s])
            heads, labels = deprojectivize([int(h) for h in heads], [self.labels[s][i] for i in label_ids])
            trees.append(sentence.with_tree(heads, labels).with_column(column, picked))
        return trees[0], trees[1]

    def parse(self, sentences: Iterable[Sentence], beam: int | None = None,
              given: int | None = None) -> Iterator[tuple[Sentence, Sentence]]:
        for sentence in sentences:
            yield self.parse_sentence(sentence, beam, given)

    def config(self) -> dict:
        return {
            "kind": self.KIND, "t": t_text(self.t), "guide": self.guide, "beam": self.beam, "tag_column": self.tag_column,
            "projective_encoding": self.projective_encoding, "templates": len(self.templates),
            "labels_a": self.labels[0], "labels_b": self.labels[1], "root_label_a": self.root_labels[0],
            "root_label_b": self.root_labels[1], "words": self.words.to_list(), "tags": self.tags.to_list(),
            "lattice": self.lattice, "lattice_weight": self.lattice_weight,
        }

    @classmethod
    def from_config(cls, config: dict, weights: TrainedWeights, directory: Path) -> "JointParser":
        labels = (list(config["labels_a"]), list(config["labels_b"]))
        parser = cls(Vocab.from_list(config["words"]), Vocab.from_list(config["tags"]), labels,
                     (label_id(config, "root_label_a", labels[0]), label_id(config, "root_label_b", labels[1])),
                     weights, t=parse_t(config["t"]),
                     guide=config.get("guide") or ("paper" if config["guided"] else "none"),  # older: "guided"
                     beam=config["beam"], tag_column=config["tag_column"],
                     projective_encoding=config["projective_encoding"], lattice=bool(config.get("lattice", False)),
                     lattice_weight=float(config.get("lattice_weight", 0.0)))
        what = "the label sets or the feature templates"
        check_width(weights, max(2 + 2 * len(labels[0]), 2 + 2 * len(labels[1])), what)
        if config["templates"] != len(parser.templates):
            raise ModelFileError(f"{directory}: weights do not match {what}")
        return parser
