"""The tokenizer: raw text in, CoNLL-U sentences of tokens and words out, learned from a UD treebank.

Training reads what every UD treebank has: each sentence's ``# text``, its tokens (the range
lines of multiword tokens, the words elsewhere) and ``SpaceAfter=No``. The sentences' texts,
joined as the treebank joins them (a space; or, when its sentences end with ``SpaceAfter=No``
as Chinese ones do, nothing every other time and a space in between), make one training document in which every character's
boundary is labelled; the boundary classifier (:mod:`hetdep.tokenizer._boundaries`) learns them,
and :class:`~hetdep.tokenizer.multiword.MultiwordExpander` the multiword tokens. No rule is
written per language: Chinese word segmentation is the same classification with fewer spaces.

The output keeps the text: ``# text`` per sentence, ``SpaceAfter=No`` where tokens touch, and
``SpacesBefore``/``SpacesAfter`` in MISC (UDPipe's convention: ``\\s`` space, ``\\t``, ``\\n``,
``\\r``, ``\\uXXXX`` other white space) wherever the white space is not one plain space, so
:func:`hetdep.tokenizer.text.rebuild_text` gives back the input exactly. A blank line always ends a sentence, and a
sentence that would pass ``MAX_TOKENS`` tokens is cut at its likeliest sentence end.
"""

from __future__ import annotations

import re
from dataclasses import asdict
from pathlib import Path
from typing import Callable, Iterator, Sequence

import numpy as np

from hetdep.errors import HetdepError
from hetdep.learn.clusters import WordClusters
from hetdep.learn.model_files import FORMAT_VERSION, ModelFileError, file_sha256, read_arrays, read_config, write_config
from hetdep.short_runs import use_references
from hetdep.tokenizer import reference
from hetdep.tokenizer.addresses import keep_addresses_whole
from hetdep.tokenizer.boundary_weights import BoundaryWeights
from hetdep.tokenizer.learning import TokenizerOptions, dev_score, fit_sentence_end_bias, train_weights
from hetdep.tokenizer.multiword import MultiwordExpander
from hetdep.tokenizer.spaced import SpacedTokens
from hetdep.tokenizer.templates import N_CLUSTER_TEMPLATES, N_LABELS, N_TEMPLATES, SENTENCE_END, TOKEN_END
from hetdep.tokenizer.text import escaped_space, gold_text
from hetdep.tokenizer.word_features import WordFeatures
from hetdep.treebank.conllu import NO_HEAD, Sentence

TREEBANK_BIASES = "treebank_sentence_end_bias"  # its record's per-treebank moves (Tokenizer.fit_treebank_biases)
TREEBANK_SHARES = "treebank_unpunctuated"  # and each treebank's choice among the trained shares' tables (Tokenizer.train)

KIND = "tokenizer"
MAX_TOKENS = 250
MAX_BUCKETS_LOG2 = 26
_BLANK_LINE = re.compile(r"\n[^\S\n]*\n")
_LINE_END = re.compile(r"\n")  # presegmented text: every line one sentence


class Tokenizer:
    def __init__(self, weights: BoundaryWeights, multiword: MultiwordExpander, record: dict | None = None,
                 words: WordFeatures | None = None, spaced: SpacedTokens | None = None):
        """``weights``: each hashed feature's weight of each label."""
        self.weights = weights
        # Several treebanks: the weights of other shares of unpunctuated sentences than the trained
        # one's that a treebank chose (share -> weights), see :meth:`train`.
        self.variants: dict[float, BoundaryWeights] = {}
        self.multiword = multiword
        self.spaced = spaced or SpacedTokens()  # tokens with a space inside (none: a tokenizer made before them)
        self.record = record or {}
        self.words = words or WordFeatures()  # without word clusters unless given
        self.pooled = self  # the tokenizer as trained, whose bias :meth:`for_treebank` moves

    # training

    @classmethod
    def train(cls, train: Sequence[Sentence], dev: Sequence[Sentence] | None = None,
              options: TokenizerOptions = TokenizerOptions(), log: Callable[[str], None] = lambda _: None,
              step: Callable[[], None] = lambda: None, clusters: WordClusters | None = None,
              treebank_devs: dict[str, Sequence[Sentence]] | None = None) -> "Tokenizer":
        """Train on sentences with ``# text``; with ``dev``, fit the sentence-end bias there and keep
        the best of the ``unpunctuated`` shares (each share's last iteration; dev's scores of every
        iteration are recorded). ``clusters``: word clusters the boundary features read.
        ``treebank_devs``: the text is several treebanks', and each of them (name -> its dev
        sentences) gets the share and the bias best on its own dev (:meth:`for_treebank`).
        ``log`` takes a line per iteration and choice, ``step`` is called after each iteration."""
        gold = gold_text(train)
        if not gold.tokens:
            raise HetdepError("no training sentence has a '# text' comment its tokens spell: the tokenizer cannot learn")
        dev_gold = gold_text(dev) if dev else None
        words = WordFeatures.of_clusters(clusters)
        dev_arrays = words.arrays(dev_gold.text) if dev_gold and dev_gold.tokens else None
        shares = options.unpunctuated if dev_arrays is not None else options.unpunctuated[:1]
        tried = []
        for share in shares:
            weights, history = train_weights(train, gold, share, options, dev_gold, dev_arrays, log, step, words)
            bias, score = 0.0, 0.0
            if dev_arrays is not None:
                weights, bias, scores = fit_sentence_end_bias(weights, dev_arrays, dev_gold, words)
                log(f"tokenizer: sentence-end bias {bias:+g} (dev F1 of sentences {scores['sentences']:.2f})")
                score = dev_score(scores)
            tried.append((score, share, weights, history, bias))
        score, share, weights, history, bias = max(tried, key=lambda t: t[0])  # the first of equals
        if len(tried) > 1:
            log(f"tokenizer: {share:g} of the sentences without their final punctuation kept (dev F1 of token "
                f"ends and sentences summed: " + ", ".join(f"{t[1]:g}: {t[0]:.2f}" for t in tried) + ")")
        multiword = MultiwordExpander.train(gold.tokens, seed=options.seed)
        spaced = SpacedTokens.train(gold.tokens)
        record = {"options": asdict(options), "history": history, "best_iteration": options.iterations,
                  "training_sentences": len(gold.tokens), "skipped_sentences": gold.skipped,
                  "multiword_forms": len(multiword.lexicon), "sentence_end_bias": bias, "unpunctuated": share}
        tokenizer = cls(weights, multiword, record, words, spaced)
        if treebank_devs:
            tokenizer._choose_for_treebanks({t[1]: t[2] for t in tried}, treebank_devs)
        return tokenizer

    # files

    def save(self, directory: str | Path) -> None:
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        clusters = {} if self.words.keys is None else {"cluster_keys": self.words.keys,
                                                       "cluster_codes": self.words.codes.astype(np.int32)}
        variants = {}
        for k, share in enumerate(sorted(self.variants)):
            variants[f"variant_rows_{k}"], variants[f"variant_values_{k}"] = self.variants[share].rows, self.variants[share].values
        np.savez_compressed(directory / "weights.npz", rows=self.weights.rows, values=self.weights.values,
                            buckets=np.array([self.weights.buckets], np.int64), **clusters, **variants)
        config = {"kind": KIND, "format_version": FORMAT_VERSION, "weights_sha256": file_sha256(directory / "weights.npz"),
                  "templates": self.words.templates, **self.record, "multiword": self.multiword.config(),
                  **({"variants": sorted(self.variants)} if self.variants else {}),
                  **({"spaced": self.spaced.config()} if self.spaced.shapes else {})}
        write_config(directory, config)

    @classmethod
    def load(cls, directory: str | Path) -> "Tokenizer":
        """The tokenizer saved in ``directory``, read through the checks every model part passes
        (config fields, the weights' sha256, each array's type and shape, finite weights)."""
        directory = Path(directory)
        config = read_config(directory)
        if config["kind"] != KIND:
            raise ModelFileError(f"{directory}: this is a '{config['kind']}' model, not a tokenizer")
        clustered = config.get("templates") == N_TEMPLATES + N_CLUSTER_TEMPLATES
        if config.get("templates") != N_TEMPLATES and not clustered:
            raise ModelFileError(f"{directory}: a tokenizer made by an earlier hetdep, whose boundary features differ "
                                 f"from this one's; train it again (hetdep train-tokenizer, or hetdep train)")
        shares = config.get("variants", [])
        if not (isinstance(shares, list) and all(isinstance(s, (int, float)) and not isinstance(s, bool) for s in shares)):
            raise ModelFileError(f"{directory / 'config.json'}: variants is not a list of shares")
        arrays = read_arrays(directory, config, {"rows": ("i", 1), "values": ("f", 2), "buckets": ("i", 1),
                                                 **({"cluster_keys": ("u", 1), "cluster_codes": ("i", 1)} if clustered else {}),
                                                 **{f"variant_{part}_{k}": kind for k in range(len(shares))
                                                    for part, kind in (("rows", ("i", 1)), ("values", ("f", 2)))}})
        buckets = arrays["buckets"]
        tables = [(arrays["rows"], arrays["values"])] + [(arrays[f"variant_rows_{k}"], arrays[f"variant_values_{k}"])
                                                         for k in range(len(shares))]
        if not (buckets.shape == (1,) and 0 < buckets[0] <= 1 << MAX_BUCKETS_LOG2 and buckets[0] & (buckets[0] - 1) == 0
                and all(values.shape == (len(rows), N_LABELS) and (len(rows) == 0 or 0 <= rows[0] and rows[-1] < buckets[0])
                        and bool(np.all(rows[1:] > rows[:-1])) and np.isfinite(values).all() for rows, values in tables)):
            raise ModelFileError(f"{directory / 'weights.npz'}: weight arrays that do not fit together")
        words = WordFeatures()
        if clustered:
            keys, codes = arrays["cluster_keys"], arrays["cluster_codes"]
            if not (keys.shape == codes.shape and keys.dtype == np.uint64 and np.all(keys != 0)
                    and not _repeats(keys) and np.all(codes >= 0)):
                raise ModelFileError(f"{directory / 'weights.npz'}: word clusters that do not fit together")
            words = WordFeatures(keys, codes.astype(np.int64))
        try:
            multiword = MultiwordExpander.from_config(config["multiword"])
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise ModelFileError(f"{directory / 'config.json'}: damaged multiword lexicon ({error!r})") from None
        try:
            spaced = SpacedTokens.from_config(config.get("spaced", []))
        except ValueError as error:
            raise ModelFileError(f"{directory / 'config.json'}: damaged shapes of tokens with spaces ({error})") from None
        record = {k: v for k, v in config.items()
                  if k not in ("kind", "format_version", "weights_sha256", "templates", "multiword", "spaced")}
        biases = record.get(TREEBANK_BIASES, {})
        if not (isinstance(biases, dict) and all(isinstance(name, str) and isinstance(bias, (int, float))
                                                 and not isinstance(bias, bool) and np.isfinite(bias)
                                                 for name, bias in biases.items())):
            raise ModelFileError(f"{directory / 'config.json'}: {TREEBANK_BIASES} is not a treebank name -> number mapping")
        chosen = record.get(TREEBANK_SHARES, {})
        if not (isinstance(chosen, dict) and all(share in (*shares, record.get("unpunctuated")) for share in chosen.values())):
            raise ModelFileError(f"{directory / 'config.json'}: {TREEBANK_SHARES} names a share the tokenizer has no table of")
        weights = [BoundaryWeights(rows.astype(np.int64), values.astype(np.float32), int(buckets[0])) for rows, values in tables]
        tokenizer = cls(weights[0], multiword, record, words, spaced)
        tokenizer.variants = dict(zip(shares, weights[1:]))
        return tokenizer

    # several treebanks

    def fit_treebank_biases(self, devs: dict[str, Sequence[Sentence]]) -> dict[str, float]:
        """For a tokenizer of several treebanks' text, each treebank's own move of the sentence-end
        bias, fitted on its dev sentences as training fits the pooled one (treebanks end sentences
        differently: Sequoia's headings, ParisStories' speech turns), recorded for
        :meth:`for_treebank`; a treebank without dev text gets none."""
        return self._choose_for_treebanks({self.record.get("unpunctuated", 0.0): self.weights}, devs)

    def _choose_for_treebanks(self, tables: dict[float, BoundaryWeights], devs: dict[str, Sequence[Sentence]]) -> dict[str, float]:
        """Each treebank's table among the trained shares' ``tables`` and its move of the sentence-end
        bias there, those with the best F1 of sentences on its dev text, as the bias is fitted (the
        trained share's on ties: fr-gsd's 147 dev sentences score the same with either): fr-sequoia's
        headings and captions want sentences without final punctuation in training, the other French
        treebanks do not. Recorded, the other shares' tables a treebank chose kept."""
        trained = self.record.get("unpunctuated", 0.0)
        order = [trained, *(share for share in tables if share != trained)]
        biases, shares = {}, {}
        for name, dev in devs.items():
            gold = gold_text(list(dev))
            if not gold.tokens:
                continue
            arrays = self.words.arrays(gold.text)
            fitted = []
            for share in order:
                _, bias, scores = fit_sentence_end_bias(tables[share], arrays, gold, self.words)
                fitted.append((scores["sentences"], share, bias))
            _, shares[name], biases[name] = max(fitted, key=lambda f: f[0])  # the first of equals
        self.record[TREEBANK_BIASES] = biases
        if len(tables) > 1:
            self.record[TREEBANK_SHARES] = shares
        else:
            self.record.pop(TREEBANK_SHARES, None)
        self.variants = {share: tables[share] for share in set(shares.values()) - {trained}}
        return biases

    def for_treebank(self, name: str) -> "Tokenizer":
        """The tokenizer ending sentences as the treebank ``name`` does (the table of its share of
        unpunctuated sentences, its fitted bias moving that table's), or the trained one where it
        has no choice of its own."""
        pooled = self.pooled
        bias = (pooled.record.get(TREEBANK_BIASES) or {}).get(name, 0.0)
        share = (pooled.record.get(TREEBANK_SHARES) or {}).get(name)
        if not bias and share not in pooled.variants:
            return pooled
        moved = Tokenizer(pooled.variants.get(share, pooled.weights).with_bias(bias), pooled.multiword, pooled.record,
                          pooled.words, pooled.spaced)
        moved.pooled = pooled
        return moved

    # tokenizing

    def tokenize(self, text: str, *, first_id: int = 1, presegmented: bool = False, ranges: bool = False,
                 offset: int = 0) -> list[Sentence]:
        """Sentences of tokens and words (no tags, no heads) covering every character of ``text``
        (white space before the first token is kept as its ``SpacesBefore``). ``presegmented``:
        each line is one sentence (UDPipe's option of that name); ``ranges``: each token's
        characters in MISC as ``TokenRange=START:END`` (counted from ``offset``)."""
        return list(self._tokenized(text, first_id, presegmented, ranges, offset))

    def _tokenized(self, text: str, first_id: int, presegmented: bool, ranges: bool, offset: int) -> Iterator[Sentence]:
        """:meth:`tokenize`'s sentences, each made as it is asked for: the text is classified whole,
        its sentences held no longer than their reader holds them."""
        if not text.strip():
            return
        n = len(text)
        # A text is classified as if it ended with a line end, as a file does: the tokenizer learned
        # from texts where every sentence is followed by white space, and at the bare end of a string
        # it would keep a final full stop on the last word.
        padded = text if text.endswith("\n") else text + "\n"
        if use_references():
            labels, scores = reference.classify(padded, self.weights, self.words.table)
            labels, scores = np.array(labels[:n], dtype=np.int8), np.array(scores[:n], dtype=np.float32)
        else:
            labels, scores = self.words.classify(self.words.arrays(padded), self.weights)
            labels, scores = labels[:n], scores[:n]
        keep_addresses_whole(text, labels)
        if presegmented:
            labels[labels == SENTENCE_END] = TOKEN_END
        for match in (_LINE_END if presegmented else _BLANK_LINE).finditer(text):  # a blank line ends a sentence
            before = match.start() - 1
            while before >= 0 and labels[before] < 0:
                before -= 1
            if before >= 0:
                labels[before] = SENTENCE_END
        ends = np.flatnonzero(labels >= TOKEN_END)
        labels[ends[-1]] = SENTENCE_END
        index = np.arange(n + 1)
        next_char = np.minimum.accumulate(np.where(np.append(labels >= 0, True), index, n)[::-1])[::-1]
        starts = next_char[np.concatenate(([0], ends[:-1] + 1))]
        sentence_ends = _cut_long(np.flatnonzero(labels[ends] == SENTENCE_END), scores[ends])
        first = 0
        for number, last in enumerate(sentence_ends):
            yield self._sentence(text, starts[first:last + 1], ends[first:last + 1] + 1,
                                 next_start=starts[last + 1] if last + 1 < len(starts) else n,
                                 at_start=first == 0, sent_id=first_id + number, offset=offset if ranges else None)
            first = last + 1

    def tokenize_document(self, text: str, block: int = 1 << 20, presegmented: bool = False,
                          ranges: bool = False) -> Iterator[Sentence]:
        """:meth:`tokenize` over a long text, a block of about ``block`` characters at a time, each
        cut after a blank line (where a sentence ends anyway; a line end when ``presegmented``),
        so memory follows the block."""
        start, sent_id = 0, 1
        boundary = _LINE_END if presegmented else _BLANK_LINE
        while start < len(text):
            cut = boundary.search(text, start + block) if len(text) - start > block else None
            end = cut.end() if cut else len(text)
            for sentence in self._tokenized(text[start:end], sent_id, presegmented, ranges, start):
                yield sentence
                sent_id += 1
            start = end

    def _sentence(self, text: str, starts, ends, next_start: int, at_start: bool, sent_id: int,
                  offset: int | None = None) -> Sentence:
        starts, ends = self.spaced.join(text, starts, ends)
        forms = [text[s:e] for s, e in zip(starts.tolist(), ends.tolist())]
        expansions = self.multiword.expand(forms)
        rows, word_rows, number = [], [], 1
        for k, (form, words) in enumerate(zip(forms, expansions)):
            misc = [] if offset is None else [f"TokenRange={offset + int(starts[k])}:{offset + int(ends[k])}"]
            if k == 0 and at_start and starts[0] > 0:
                misc.append("SpacesBefore=" + escaped_space(text[:starts[0]]))
            gap = text[ends[k]:starts[k + 1] if k + 1 < len(forms) else next_start]
            if gap == "":
                misc.append("SpaceAfter=No")
            elif gap != " ":
                misc.append("SpacesAfter=" + escaped_space(gap))
            misc_field = "|".join(misc) or "_"
            if words:
                rows.append([f"{number}-{number + len(words) - 1}", form] + ["_"] * 7 + [misc_field])
                for word in words:
                    word_rows.append(len(rows))
                    rows.append([str(number), word] + ["_"] * 8)
                    number += 1
            else:
                word_rows.append(len(rows))
                rows.append([str(number), form] + ["_"] * 7 + [misc_field])
                number += 1
        sentence_text = " ".join(text[starts[0]:ends[-1]].split())
        comments = [f"# sent_id = {sent_id}", f"# text = {sentence_text}"]
        return Sentence(comments, rows, word_rows, [NO_HEAD] * len(word_rows))


def _repeats(keys: np.ndarray) -> bool:
    """Whether a key is there twice (sorted and compared: NumPy's ``unique`` of 100,000 keys took 20x as long)."""
    ordered = np.sort(keys)
    return bool((ordered[1:] == ordered[:-1]).any())


def _cut_long(sentence_ends: np.ndarray, token_scores: np.ndarray) -> list[int]:
    """Token indices that end sentences, with any run longer than MAX_TOKENS cut where a sentence
    end scores best (against a mere token end) in the run's second half."""
    margin = token_scores[:, SENTENCE_END] - token_scores[:, TOKEN_END]
    cuts, first = [], 0
    for last in sentence_ends.tolist():
        while last - first + 1 > MAX_TOKENS:
            low, high = first + MAX_TOKENS // 2, first + MAX_TOKENS
            cut = low + int(np.argmax(margin[low:high]))
            cuts.append(cut)
            first = cut + 1
        cuts.append(last)
        first = last + 1
    return cuts
