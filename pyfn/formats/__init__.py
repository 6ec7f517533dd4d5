"""One module per data format, each a reader and a writer that round-trip."""
