"""What every learned model shares: vocabularies, the averaged perceptron's weights (compiled twin in _weights), model files, the training loop."""
