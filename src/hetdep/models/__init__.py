"""Every kind of model as one: choosing and training a parser from options, loading a model directory by its kind."""
