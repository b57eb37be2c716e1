"""zhang2014's joint model: two schemes' arc-standard stacks in one beam, guided features, the interleaving t."""
