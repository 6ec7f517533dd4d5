"""Hugging Face ``datasets``: pyfn's splits as a ``DatasetDict`` (``pip install "pyfn[hf]"``).

The rows and columns are those of ``pyfn convert --to parquet``
(:data:`pyfn.formats.parquet.SCHEMA`, with its field metadata); each
split's ``info.description`` carries the data signature. Without pyfn,
``datasets.load_dataset("parquet", data_files=...)`` loads the same files.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pyfn.api import Split
from pyfn.errors import PyfnError
from pyfn.fileio import LOCK_NAME
from pyfn.formats.registry import SPLIT_NAMES, check_installed
from pyfn.manifest import MANIFEST, check_finished

if TYPE_CHECKING:
    import datasets
    import pyarrow as pa

CITATION = (
    "@inproceedings{kabbach-etal-2018-butterfly,\n"
    "  title = {Butterfly Effects in Frame Semantic Parsing: impact of data processing on model ranking},\n"
    "  author = {Kabbach, Alexandre and Ribeyre, Corentin and Herbelot, Aur{\\'e}lie},\n"
    "  booktitle = {Proceedings of the 27th International Conference on Computational Linguistics},\n"
    "  year = {2018}, pages = {3158--3169}\n}"
)


def to_hf(data: str | Path | Split | Mapping[str, Split]) -> datasets.DatasetDict:
    """A ``datasets.DatasetDict`` of pyfn's annotation-set rows, one ``Dataset`` per split.

    ``data``: a folder written by ``pyfn convert --to parquet`` (its
    ``{train,dev,test}.parquet``; one with a ``manifest.json`` must be a
    finished, unedited output) or one such file; or what :func:`pyfn.load`
    returns (a :class:`~pyfn.api.Split` or a dict of them), made into the same
    rows in memory, with FE core types from the release the split was built
    from. The signature is in each split's ``info.description``.
    """
    check_installed("parquet")
    try:
        import datasets  # noqa: PLC0415 - an optional extra
    except ImportError:
        raise PyfnError('pyfn.to_hf needs datasets: pip install "pyfn[hf]"', exit_code=2) from None
    from datasets.table import InMemoryTable  # noqa: PLC0415

    if isinstance(data, Split):
        tables = {data.name: _split_table(data)}
    elif isinstance(data, Mapping):
        tables = {name: _split_table(split) for name, split in data.items()}
    else:
        tables = _read_tables(Path(data))
    out = {}
    for name, table in tables.items():
        signature = (table.schema.metadata or {}).get(b"pyfn.signature", b"").decode() or "none recorded"
        info = datasets.DatasetInfo(
            description=f"FrameNet annotation sets by pyfn, split {name}; data signature {signature}",
            citation=CITATION,
            homepage="https://framenet.icsi.berkeley.edu/",
            license="FrameNet data: CC BY (ICSI, Berkeley)",
            features=datasets.Features.from_arrow_schema(table.schema),
            dataset_name="pyfn",
        )
        out[name] = datasets.Dataset(InMemoryTable(table), info=info, split=datasets.NamedSplit(name))
    return datasets.DatasetDict(out)


def _read_tables(path: Path) -> dict[str, pa.Table]:
    from pyfn.formats import parquet  # noqa: PLC0415 - pyarrow is an optional extra

    if not path.exists():
        raise PyfnError(f"{path}: no such file or directory")
    folder = path if path.is_dir() else path.parent
    if (folder / MANIFEST).is_file() or (folder / LOCK_NAME).is_file():
        check_finished(folder)
    files = [path] if path.is_file() else [folder / f"{s}.parquet" for s in SPLIT_NAMES
                                            if (folder / f"{s}.parquet").is_file()]
    if not files:
        raise PyfnError(f"{path}: no train, dev or test .parquet file there (pyfn convert --to parquet)")
    return {file.name.split(".", 1)[0]: parquet.read_table(file) for file in files}


def _split_table(split: Split) -> pa.Table:
    from pyfn.convert import read_frames  # noqa: PLC0415 - convert imports much
    from pyfn.formats import parquet  # noqa: PLC0415
    from pyfn.formats.base import SplitView  # noqa: PLC0415
    from pyfn.framenet.release import open_release  # noqa: PLC0415

    source: Any = split.manifest.get("source", {})
    frames = read_frames(open_release(source["resolved"])) if "release" in split.manifest else None
    return parquet.sets_table(SplitView.of(split.sets), frames, split.signature)
