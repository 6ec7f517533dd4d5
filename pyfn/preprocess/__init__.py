"""Pluggable preprocessing: POS tags, lemmas and dependency parses on FrameNet's own tokens."""
