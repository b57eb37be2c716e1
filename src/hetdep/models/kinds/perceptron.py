"""The seeds' perceptron parsers: arc-standard (zhang2014's single-scheme parser), the joint model
of two schemes, and the graph-based parsers dep1 and dep2 (zhou-zhao2013), alone or helping each
other (joint inference, ``--with``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator

from hetdep.errors import HetdepError
from hetdep.learn.model_files import read_config, read_kind
from hetdep.models import GRAPH_KINDS
from hetdep.models.parsing import OpenModels, ParseChoice, bundled_parts, set_lattice_weight
from hetdep.threads import ordered_map
from hetdep.treebank.conllu import Sentence
from hetdep.treebank.feature_maps import FeatureMap

JOINT = "joint"


@dataclass
class PerceptronModels(OpenModels):
    """A perceptron parser with its bundled tagger (candidate tags for a lattice model), or two
    graph-based parsers re-parsing with each other's k-best trees."""

    helper: object = None  # the second graph-based parser of joint inference
    feats_b: FeatureMap | None = None  # a joint model's map from scheme a's FEATS (its tagger's, or given trees') to b's

    TAKES = {"arc-standard": frozenset({"lattice_weight"}), JOINT: frozenset({"given", "lattice_weight"}),
             **{kind: frozenset({"helper", "treebank"}) for kind in GRAPH_KINDS}}

    @classmethod
    def open(cls, model_dir: Path, config: dict, choice: ParseChoice, tag_input: bool) -> "PerceptronModels":
        from hetdep.graph.parser import GraphParser
        from hetdep.joint.parser import JointParser
        from hetdep.joint.schedule import INFINITE, t_text
        from hetdep.transition.parser import ArcStandardParser

        kind = str(config["kind"])
        if choice.treebank is not None and choice.helper is not None:
            raise HetdepError("--treebank and --with do not combine: joint inference parses with each model's own labels")
        bundled = bundled_parts(config, model_dir, tag_input)
        opened = cls(model_dir, kind, None, choice, taggers=bundled.taggers, tokenizer=bundled.tokenizer, config=config,
                     feats_b=bundled.feats_b)
        if kind in GRAPH_KINDS:
            opened.parser = GraphParser.load(model_dir, kind)
            if choice.helper is not None:
                from hetdep.graph.consensus import check_compatible

                helper_kind = read_kind(choice.helper)
                if helper_kind not in GRAPH_KINDS:
                    raise HetdepError(f"joint inference (--with) needs two graph-based models (dep1 or dep2: their k-best "
                                      f"lists), not '{kind}' and '{helper_kind}'")
                opened.helper = GraphParser.load(choice.helper, helper_kind)
                check_compatible(opened.parser, opened.helper, str(model_dir), str(choice.helper))
            elif choice.treebank is not None:
                opened.parser = opened.parser.for_treebank(choice.treebank)
            return opened
        opened.parser = JointParser.load(model_dir) if kind == JOINT else ArcStandardParser.load(model_dir)
        if choice.given is not None and opened.parser.t == (-INFINITE if choice.given == 0 else INFINITE):
            given, t = choice.given, opened.parser.t
            opened.warnings.append(f"{model_dir} parses scheme {'ab'[1 - given]} wholly before scheme {'ab'[given]} "
                                   f"(t = {t_text(t)}), so the given trees cannot guide it: the output is a plain parse. "
                                   f"A model trained with --t {t_text(-t)} converts from scheme {'ab'[given]}.")
        set_lattice_weight(opened.parser, choice.lattice_weight, model_dir)
        return opened

    @property
    def pairs(self) -> bool:
        return self.helper is not None or (self.kind == JOINT and self.choice.given is None)

    @property
    def two_schemes(self) -> bool:
        return self.pairs and self.helper is None

    @property
    def schemes(self) -> tuple[str, ...]:
        names = list(super().schemes)
        if self.helper is not None:  # the helper's first scheme second (renamed if it is the same)
            other = (read_config(self.choice.helper).get("schemes") or ["b"])[0]
            names = [names[0], other if other != names[0] else f"{other}-helper"]
        return tuple(names)

    def check_outputs(self, second_output: bool) -> None:
        if self.kind == JOINT and self.choice.given is not None and second_output:
            raise HetdepError("given the trees of one scheme (--gold-a/--gold-b), a joint model writes the other "
                              "scheme's trees alone, to --output: drop --output-b")
        super().check_outputs(second_output)

    def tag(self, sentences: Iterable[Sentence]) -> Iterable[Sentence]:
        """The input tagged by the bundled taggers (candidate tags of the parser's column for a lattice model)."""
        lattice = getattr(self.parser, "lattice", False)  # the graph-based parsers read one tag a word
        for tagger in self.taggers:
            sentences = tagger.tag(sentences, k=self.choice.lattice_k if lattice and tagger.column == self.parser.tag_column
                                   else 0)
        return sentences

    def parse_trees(self, sentences: Iterable[Sentence]) -> Iterator:
        """One tree, or one pair of trees, per input sentence, in order (the input tagged first if a
        tagger is bundled; refused at its first untagged word if not)."""
        if self.choice.threads > 1:
            parsed = ordered_map(self._parse_one, sentences, self.choice.threads)
        else:
            parsed = self._parse_in_turn(sentences)
        if self.feats_b is None or self.choice.given == 1:  # given scheme b's trees, the output is scheme a's
            return parsed
        if self.choice.given == 0:  # given scheme a's trees (and FEATS), the output is scheme b's
            return (self.feats_b.sentence(tree) for tree in parsed)
        if not any(tagger.column == "feats" for tagger in self.taggers):  # the input's FEATS, of no known scheme
            return parsed
        return ((trees[0], self.feats_b.sentence(trees[1])) if isinstance(trees, tuple) else trees for trees in parsed)

    def _parse_one(self, sentence: Sentence):
        return next(iter(self._parse_in_turn([sentence])))

    def _parse_in_turn(self, sentences: Iterable[Sentence]) -> Iterator:
        sentences = self.tag(sentences) if self.taggers else self.require_tags(sentences)
        choice = self.choice
        if self.helper is not None:
            from hetdep.graph.consensus import joint_parse

            return joint_parse(self.parser, self.helper, sentences, choice.consensus, choice.consensus)
        if self.kind == JOINT and choice.given is not None:
            return (pair[1 - choice.given] for pair in self.parser.parse(sentences, choice.beam, choice.given))
        return self.parser.parse(sentences, choice.beam)
