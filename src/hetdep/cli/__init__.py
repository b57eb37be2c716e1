"""The ``hetdep`` command line: one group, one module per family of commands.

The commands map options to library calls; which options combine is the library's rule.
"""

from hetdep.cli import converting, experiments, packaging, parsing, rendering, scoring, serving, training
from hetdep.cli.app import main

for command in (scoring.eval_command, scoring.compare_command, scoring.validate_command, scoring.projectivity_command,
                training.train_command, parsing.parse_command, training.train_tagger_command, parsing.tag_command,
                training.jackknife_command, training.train_tokenizer_command, parsing.tokenize_command,
                parsing.info_command, rendering.render_command, serving.serve_command, converting.convert_command, experiments.experiment_group,
                packaging.compact_command, packaging.package_command, packaging.models_command):
    main.add_command(command)

__all__ = ["main"]
