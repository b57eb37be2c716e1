"""hetdep as a library: ``hetdep.load(MODEL)`` gives a callable model, and parsing gives documents."""
