"""Numbered, verifiable experiments: recipes, steps, manifests, reports and verification."""
