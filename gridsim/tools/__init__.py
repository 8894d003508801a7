"""Tools over any family: evaluation (results, policies, the episode loop), Ray, recording, play, benchmarks."""
