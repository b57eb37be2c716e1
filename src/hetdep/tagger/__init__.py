"""The POS tagger: averaged perceptron with beam search, k-best tags, jackknifing."""
