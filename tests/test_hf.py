"""Hugging Face datasets: pyfn's Parquet loads offline with no pyfn code, and pyfn.to_hf (pyfn/hf.py)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

import pyfn
from pyfn.convert import convert
from pyfn.errors import PyfnError
from pyfn.resources import resource_path
from pyfn.splits.builder import BuildOptions

SAMPLE = resource_path("sample")


pytestmark = pytest.mark.usefixtures("hf_offline")  # no network, a Hugging Face cache of each test's own


@pytest.fixture(scope="module")
def sample_pq(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("hf") / "out"
    convert(SAMPLE, out, to="parquet", options=BuildOptions(exclude_frames=frozenset({398})))
    return out


def test_load_dataset_reads_pyfn_parquet_without_pyfn(sample_pq, tmp_path):
    """A fresh interpreter that never imports pyfn loads the files with datasets alone."""
    import subprocess  # noqa: PLC0415

    script = (
        "import json, sys, datasets, pyarrow.parquet as pq\n"
        "files = {s: f'{sys.argv[1]}/{s}.parquet' for s in ('train', 'dev', 'test')}\n"
        "ds = datasets.load_dataset('parquet', data_files=files, cache_dir=sys.argv[2])\n"
        "row = ds['test'][0]\n"
        "print(json.dumps({'rows': {k: v.num_rows for k, v in ds.items()}, 'frame': row['frame'],\n"
        "  'fe': row['fes'][0], 'pyfn': 'pyfn' in sys.modules,\n"
        "  'signature': pq.read_schema(files['test']).metadata[b'pyfn.signature'].decode()}))\n"
    )
    done = subprocess.run([sys.executable, "-c", script, str(sample_pq), str(tmp_path / "cache")],
                          capture_output=True, text=True, check=True, cwd=tmp_path)
    result = json.loads(done.stdout.splitlines()[-1])
    manifest = json.loads((sample_pq / "manifest.json").read_text(encoding="utf-8"))
    assert result["rows"] == {s: c["annotation_sets"] for s, c in manifest["splits"].items()}
    assert result["frame"] == "Damaging" and result["fe"]["name"] == "Cause" and result["fe"]["char_end"] == 150
    assert result["signature"] == manifest["signature"] and not result["pyfn"]


def test_to_hf_from_a_folder_and_from_load(sample_pq):
    import datasets  # noqa: PLC0415

    from_files = pyfn.to_hf(sample_pq)
    built = pyfn.to_hf(pyfn.load("sample", "all", exclude_frames=[398]))
    manifest = json.loads((sample_pq / "manifest.json").read_text(encoding="utf-8"))
    assert isinstance(from_files, datasets.DatasetDict) and list(from_files) == ["train", "dev", "test"]
    for name, ds in from_files.items():
        assert ds.num_rows == manifest["splits"][name]["annotation_sets"]
        assert manifest["signature"] in ds.info.description and ds.info.license
        assert ds.data.table.equals(built[name].data.table)
        assert ds.data.table.schema.equals(built[name].data.table.schema, check_metadata=True)
    test = pyfn.to_hf(pyfn.load("sample", "test"))
    assert list(test) == ["test"] and "excl:none" in test["test"].info.description
    assert list(pyfn.to_hf(sample_pq / "dev.parquet")) == ["dev"]


def test_to_hf_errors(tmp_path, monkeypatch):
    with pytest.raises(PyfnError, match="no train, dev or test .parquet"):
        pyfn.to_hf(tmp_path)
    monkeypatch.setitem(sys.modules, "datasets", None)
    with pytest.raises(PyfnError, match=r'pip install "pyfn\[hf\]"'):
        pyfn.to_hf(tmp_path)
