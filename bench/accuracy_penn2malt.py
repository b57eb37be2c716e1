"""Head agreement of our Penn2Malt conversion with NLTK's Penn2Malt WSJ sample (issue 5 target: 99%).

Converts every tree of ``treebank.zip`` with the bundled ``penn2malt`` table and compares heads
word by word with ``dependency_treebank.zip`` (Malt-TAB: word, POS, head). Prints agreement on
non-punctuation words and on all words, and the disagreements by the phrase the word attaches in.

    python bench/accuracy_penn2malt.py [--data ../shared/data/en-wsj-sample]
"""

from __future__ import annotations

import argparse
import zipfile
from collections import Counter
from pathlib import Path

from hetdep.convert.headrules import PUNCTUATION_TAGS, load_table, to_dependencies
from hetdep.treebank.ptb import clean, read_trees


def read_malt_tab(archive: Path) -> dict[str, list[list[tuple[str, str, int]]]]:
    """File stem -> sentences of (word, POS, head)."""
    files = {}
    with zipfile.ZipFile(archive) as handle:
        for name in sorted(handle.namelist()):
            if name.endswith(".dp"):
                blocks = [block for block in handle.read(name).decode("utf-8").split("\n\n") if block.strip()]
                files[Path(name).stem] = [
                    [(word, tag, int(head)) for word, tag, head in (line.split("\t") for line in block.strip().split("\n"))]
                    for block in blocks
                ]
    return files


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(Path(__file__).parents[1] / ".." / "shared" / "data" / "en-wsj-sample"))
    args = parser.parse_args()
    data = Path(args.data)
    reference = read_malt_tab(data / "dependency_treebank.zip")
    table = load_table("penn2malt")
    words = agree = all_words = all_agree = sentences = 0
    residue: Counter = Counter()
    position: dict[str, int] = Counter()
    for tree in read_trees(data / "treebank.zip"):
        deps = to_dependencies(clean(tree.root), table)
        stem = Path(tree.path.split(":")[-1]).stem
        gold = reference[stem][position[stem]]
        position[stem] += 1
        sentences += 1
        if [word for word, _, _ in gold] != deps.forms:
            raise SystemExit(f"{tree.describe()}: words differ from the reference")
        for (_, tag, head), ours, phrase in zip(gold, deps.heads, deps.phrases):
            all_words += 1
            all_agree += head == ours
            if tag in PUNCTUATION_TAGS:
                continue
            words += 1
            if head == ours:
                agree += 1
            else:
                residue[phrase or "(root)"] += 1
    print(f"sentences {sentences}, non-punctuation words {words}")
    print(f"heads agree: {agree / words:.4%} of non-punctuation words ({words - agree} differ), {all_agree / all_words:.4%} of all words")
    print("disagreements by the phrase the word attaches in (our conversion):")
    for phrase, count in residue.most_common():
        print(f"  {phrase:8} {count}")
    if table.unknown:
        print("phrase labels not in the table (DEFAULT rule used):", dict(table.unknown))


if __name__ == "__main__":
    main()
