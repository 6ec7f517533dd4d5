"""pyfn: standardized, reproducible FrameNet data for frame semantic parsing."""

__version__ = "0.1.0"
