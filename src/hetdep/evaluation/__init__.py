"""Scoring trees: attachment scores and their analyses, significance tests."""
