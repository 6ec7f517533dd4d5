"""Access to FrameNet releases (directory or zip) and their XML readers."""

from pyfn.framenet.release import Release, open_release

__all__ = ["Release", "open_release"]
