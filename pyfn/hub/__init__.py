"""A Hugging Face dataset folder of a FrameNet release: Parquet per config and split, split ids, manifest and card.

``pyfn export hf`` (:func:`pyfn.hub.export.export_hf`) writes it; ``datasets.load_dataset(DIR, CONFIG)``
reads it without a loading script (docs/HF_DATASET.md).
"""
