"""Scheme b's FEATS from scheme a's: learned from the training pairs, applied to a joint model's output."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from conftest import SAMPLES

from hetdep.cli import main
from hetdep.treebank.conllu import FEATS, UPOS, read_conllu
from hetdep.treebank.feature_maps import FeatureMap


@pytest.fixture(scope="module")
def sample_map() -> FeatureMap:
    return FeatureMap.learn(zip(read_conllu(SAMPLES / "train.sud.conllu"), read_conllu(SAMPLES / "train.ud.conllu")))


def test_the_map_gives_scheme_bs_features_of_the_training_words(sample_map):
    pairs = list(zip(read_conllu(SAMPLES / "train.sud.conllu"), read_conllu(SAMPLES / "train.ud.conllu")))
    words = [(u, fa, fb) for a, b in pairs for u, fa, fb in zip(a.column(UPOS), a.column(FEATS), b.column(FEATS))]
    differ = sum(fa != fb for _, fa, fb in words)
    right = sum(sample_map.apply(u, fa) == fb for u, fa, fb in words)
    assert differ > 100 and right >= len(words) - 2  # SUD's ExtPos and Shared, which UD leaves out


def test_an_unseen_bundle_is_mapped_feature_by_feature(sample_map):
    assert sample_map.apply("NUM", "ExtPos=DET|NumType=Card") == "NumType=Card"
    unseen = "Definite=Ind|ExtPos=DET|NumType=Frac"
    assert f"NUM {unseen}" not in sample_map.bundles
    assert sample_map.apply("NUM", unseen) == "Definite=Ind|NumType=Frac"
    assert sample_map.apply("PUNCT", "Shared=Yes") == "_"
    assert sample_map.apply("X", "Foo=Bar") == "Foo=Bar"  # nothing learned about it: kept
    assert "Shared" in sample_map.absent and "INTJ Shared=Yes" not in sample_map.features
    assert sample_map.apply("INTJ", "Shared=Yes") == "_"  # a feature UD never writes, on a UPOS never seen with it
    assert sample_map.apply("NUM", "ExtPos=PRON|NumType=Card") == "NumType=Card"  # UD's NUM never has ExtPos


def test_schemes_with_the_same_features_need_no_map_and_a_map_survives_its_record(sample_map):
    same = list(read_conllu(SAMPLES / "train.ud.conllu"))
    assert FeatureMap.learn(zip(same, same)) is None
    assert FeatureMap.from_record(json.loads(json.dumps(sample_map.record()))) == sample_map
    older = {key: value for key, value in sample_map.record().items() if key != "absent"}  # a model of before
    assert FeatureMap.from_record(older).absent == frozenset()
    with pytest.raises(ValueError):
        FeatureMap.from_record({"bundles": {"NUM _": 3}, "features": {}})


def test_a_joint_models_second_scheme_gets_its_own_features(pipeline_model, tmp_path):
    config = json.loads((pipeline_model / "config.json").read_text(encoding="utf-8"))
    learned = FeatureMap.from_record(config["pipeline"]["feats_b"])
    dev = SAMPLES / "dev.sud.conllu"
    outputs = tmp_path / "a.conllu", tmp_path / "b.conllu"
    result = CliRunner().invoke(main, ["parse", "--model", str(pipeline_model), "--input", str(dev), "--output",
                                       str(outputs[0]), "--output-b", str(outputs[1])])
    assert result.exit_code == 0, result.output
    a, b = (list(read_conllu(path)) for path in outputs)
    assert _scheme_a_only(a)
    for sa, sb in zip(a, b):
        assert sb.column(FEATS) == [learned.apply(u, feats) for u, feats in zip(sa.column(UPOS), sa.column(FEATS))]
    assert not _scheme_a_only(b)
    converted = tmp_path / "converted.conllu"  # scheme b's trees given scheme a's, and b's FEATS
    result = CliRunner().invoke(main, ["parse", "--model", str(pipeline_model), "--gold-a", str(dev), "--output",
                                       str(converted)])
    assert result.exit_code == 0, result.output
    assert not _scheme_a_only(read_conllu(converted))
    damaged = tmp_path / "damaged"
    damaged.mkdir()
    for path in pipeline_model.iterdir():
        (damaged / path.name).symlink_to(path)
    (damaged / "config.json").unlink()
    config["pipeline"]["feats_b"] = {"bundles": [], "features": {}}
    (damaged / "config.json").write_text(json.dumps(config), encoding="utf-8")
    result = CliRunner().invoke(main, ["parse", "--model", str(damaged), "--input", str(dev), "--output",
                                       str(tmp_path / "c.conllu"), "--output-b", str(tmp_path / "d.conllu")])
    assert result.exit_code != 0 and "damaged map of scheme b's FEATS" in result.output, result.output
    assert not (tmp_path / "c.conllu").exists()


def _scheme_a_only(sentences) -> bool:
    """Whether a word has a feature fr-sequoia's SUD writes and its UD does not."""
    return any("Shared=" in feats or (upos == "NUM" and "ExtPos=" in feats)
               for s in sentences for upos, feats in zip(s.column(UPOS), s.column(FEATS)))
