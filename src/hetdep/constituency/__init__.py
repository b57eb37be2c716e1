"""Shift-reduce constituency parsing (Zhu et al. 2013; mi-huang2015) and its trees."""
