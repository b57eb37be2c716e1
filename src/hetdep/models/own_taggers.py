"""A model of several treebanks: each treebank's own taggers (``treebank-taggers/NAME/``), read when
the model is first parsed as that treebank. The shipped ``fr``'s two took 0.09 s and 23 MB to read,
which a parse as its default treebank, nearly every parse, never used. Their files are checked when
the model opens (:func:`hetdep.learn.model_files.checked_config`), so a damaged one is still
refused by any command, not only when parsed as."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from pathlib import Path

from hetdep.learn.model_config import ModelFileError
from hetdep.learn.model_files import checked_config
from hetdep.models import TREEBANK_TAGGERS
from hetdep.models.parsing import recorded_taggers


class OwnTaggers(Mapping):
    """Treebank name -> its own taggers by column, each treebank's read at its first lookup (the
    parsing threads may ask at once: read once), shared by the copies ``for_treebank`` makes."""

    def __init__(self, config: dict, model_dir: Path):
        """Refused unless the folders are those the training recorded (``pipeline.treebank_taggers``)
        and each tagger's files those it was saved with; a tagger saved without its weights'
        digest is read here whole instead."""
        recorded = (config.get("pipeline") or {}).get("treebank_taggers") or {}
        self.folder = Path(model_dir) / TREEBANK_TAGGERS
        found = sorted(path.name for path in self.folder.iterdir()) if self.folder.is_dir() else []
        if (not isinstance(recorded, dict) or sorted(recorded) != found
                or not all(isinstance(columns, list) for columns in recorded.values())):
            raise ModelFileError(f"{self.folder}: the treebanks' own taggers are not those the model was trained with "
                                 f"({', '.join(found) or 'none'} found, {', '.join(recorded) or 'none'} recorded; a damaged model directory)")
        self.recorded = recorded
        self._read: dict[str, dict] = {}
        self._reading = threading.Lock()
        for name, columns in recorded.items():
            if not _checked(self.folder / name, set(columns)):
                self._read[name] = self._taggers(name)

    def _taggers(self, name: str) -> dict:
        columns = self.recorded[name]
        return {tagger.column: tagger for tagger in (recorded_taggers(self.folder / name, set(columns), exactly=True)
                                                     if columns else [])}

    def __getitem__(self, name: str) -> dict:
        if name not in self.recorded:
            raise KeyError(name)
        with self._reading:
            if name not in self._read:
                self._read[name] = self._taggers(name)
            return self._read[name]

    def __iter__(self):
        return iter(self.recorded)

    def __len__(self) -> int:
        return len(self.recorded)

    def read(self) -> list[str]:
        """The treebanks whose taggers have been read so far."""
        return sorted(self._read)


def _checked(folder: Path, columns: set[str]) -> bool:
    """Whether the taggers of ``columns`` in ``folder`` (a subfolder each, with its right-to-left
    companion where there is one) are whole by their files' digests, without reading them; False
    where that cannot tell (a folder not as recorded, a part without a digest): read them to know."""
    from hetdep.tagger.tagger import BACKWARD, Tagger

    entries = sorted(path.name for path in folder.iterdir()) if folder.is_dir() else []
    if entries != sorted(columns):
        return False
    for column in entries:
        parts = [folder / column] + ([folder / column / BACKWARD] if (folder / column / BACKWARD).exists() else [])
        for part in parts:
            config = checked_config(part, Tagger.KIND)
            if config is None or config.get("column") != column:
                return False
    return True
