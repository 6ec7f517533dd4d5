"""External parsers run on pyfn's data: installation and Open-SESAME's steps."""
