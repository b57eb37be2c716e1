"""The papers' experiments, one module each, and what they share."""
