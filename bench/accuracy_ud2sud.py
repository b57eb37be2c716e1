"""Agreement of our UD -> SUD conversion with the real SUD release (issue 5: heads 95%, labels 90%).

For each treebank folder with ``*.ud.conllu`` and ``*.sud.conllu`` pairs, converts the UD side
and compares with the SUD side on non-punctuation words: heads, base labels (the part before
':' or '@') and full labels. ``--errors N`` lists the N most frequent disagreement types as
(UD relation, gold SUD relation, converted SUD relation, head right?).

    python bench/accuracy_ud2sud.py [--errors 20] ../shared/data/fr-sequoia ../shared/data/fr-gsd
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

from hetdep.convert.ud2sud import convert_sentences
from hetdep.evaluation.attachment import base_label
from hetdep.treebank.conllu import UPOS, read_conllu
from hetdep.treebank.pairs import read_pairs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="+", type=Path)
    parser.add_argument("--errors", type=int, default=15)
    args = parser.parse_args()
    for folder in args.folders:
        words = heads = bases = labels = 0
        errors: Counter = Counter()
        for ud_path in sorted(folder.glob("*.ud.conllu")):
            sud_path = ud_path.with_name(ud_path.name.replace(".ud.", ".sud."))
            converted = convert_sentences(read_conllu(ud_path))
            for pair, ours in zip(read_pairs(ud_path, sud_path), converted):
                ud, gold = pair.a, pair.b
                for i, tag in enumerate(gold.column(UPOS)):
                    if tag == "PUNCT":
                        continue
                    words += 1
                    head_ok = gold.heads[i] == ours.heads[i]
                    gold_label, our_label = gold.deprels[i], ours.deprels[i]
                    heads += head_ok
                    bases += base_label(gold_label) == base_label(our_label)
                    labels += gold_label == our_label
                    if not head_ok or gold_label != our_label:
                        errors[(ud.deprels[i], gold_label, our_label, "head ok" if head_ok else "head differs")] += 1
        print(f"{folder.name}: {words} non-punctuation words; heads {heads / words:.2%}, "
              f"base labels {bases / words:.2%}, full labels {labels / words:.2%}")
        for key, count in errors.most_common(args.errors):
            print(f"  {count:6}  UD {key[0]:12} gold {key[1]:16} ours {key[2]:16} {key[3]}")


if __name__ == "__main__":
    main()
