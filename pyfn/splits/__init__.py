"""Split definitions, annotation-set validity, filters, hashing and the split builder."""
