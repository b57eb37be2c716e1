"""Converting between schemes: constituency to dependency by head rules, UD to SUD."""
