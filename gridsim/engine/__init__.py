"""The engine: the batch (vector and single envs), its state, events, random streams and drawing; no family."""
