"""What every learned model shares: vocabularies, the averaged perceptron's weights (compiled twin in _weights), model files, the training loop."""

MAX_BEAM = 4096  # the largest beam a model file or the command line may ask for (memory grows with it)
